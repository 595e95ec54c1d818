/**
 * A real browser for UI tests and screenshots: Debian's chromium driven by playwright-core.
 * The networking flags keep chromium from dialling out, which stalls it on a closed network.
 */
import { deepEqual } from "node:assert/strict";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { createUser, type TestUser } from "./access_fixtures.ts";
import { startTestServer, type TestServer } from "./harness.ts";
import type { Principal } from "../../src/identity/mod.ts";

export const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

/**
 * A test that needs the browser: ignored (and counted so) where chromium is not installed,
 * unless `SERVICE_TEST_REQUIRE_SERVICES` makes a missing browser a failure, as in CI.
 */
export function browserTest(name: string, fn: (t: Deno.TestContext) => Promise<void>): void {
  const required = Deno.env.get("SERVICE_TEST_REQUIRE_SERVICES") === "1";
  const ignore = !hasChromium() && !required;
  if (ignore) console.error(`ignored (no chromium at ${CHROMIUM}): ${name}`);
  // The browser's own pipes and timers outlive a test by design; playwright closes them.
  Deno.test({ name, ignore, sanitizeResources: false, sanitizeOps: false, fn });
}

/** Every console error and failed request of a page, so a test can insist there were none. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return problems;
}

/**
 * Waits for the live run view's result table. When it does not come, the error tells what the
 * view showed instead (a failure, a status) and what the console reported, `problems` being
 * the page's `watchConsole` list: a bare timeout says nothing of why a run never showed rows.
 */
export async function runResultShown(page: Page, problems: string[] = []): Promise<void> {
  try {
    await page.locator("#run-live .result-table").waitFor();
  } catch (e) {
    const view = await page.locator("#run-live").innerText({ timeout: 1000 })
      .catch(() => "(no run view)");
    throw new Error(
      `no result table at ${page.url()}: ${(e as Error).message}\n` +
        `the run view showed:\n${view.slice(0, 2000)}\nconsole:\n${problems.join("\n")}`,
    );
  }
}

/** Signs in through the login form; answers the page it lands on. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/login`);
  await page.fill("input[name=email]", email);
  await page.fill("input[name=password]", password);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/login")),
    page.click("button[type=submit]"),
  ]);
}

/** The axe rules whose outcome depends on colours: all a theme changes (see app.css). */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * axe-core's serious and critical violations on the page as it is now, as readable lines; only
 * the rules named in `rules` when given, every rule otherwise. The script is handed to the page
 * as text (once per document), so it is served by nobody and needs no CSP change.
 */
export async function accessibilityProblems(page: Page, rules?: string[]): Promise<string[]> {
  // deno-lint-ignore no-explicit-any
  if (!await page.evaluate(() => "axe" in (globalThis as any))) {
    const { default: source } = await import("axe-core/axe.min.js", { with: { type: "text" } });
    await page.evaluate(source);
  }
  // No CSSOM preload: axe would re-parse the code editors' shadow-root stylesheets through <style>
  // elements, which the page's Content-Security-Policy blocks (console errors of the tool, not
  // of the page). Only css-orientation-lock reads the CSSOM.
  // deno-lint-ignore no-explicit-any
  const result: any = await page.evaluate((only) =>
    // deno-lint-ignore no-explicit-any
    (globalThis as any).axe.run(document, {
      preload: false,
      // Only violations are read: passing nodes get no selectors worked out (most of the time).
      resultTypes: ["violations"],
      ...only ? { runOnly: { type: "rule", values: only } } : {},
    }), rules);
  // deno-lint-ignore no-explicit-any
  return result.violations.filter((v: any) => v.impact === "serious" || v.impact === "critical")
    // deno-lint-ignore no-explicit-any
    .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target).join(", ")}`);
}

/**
 * Replaces the text of the code editor that enhances `textarea#id` (CodeMirror, in a shadow root
 * the locator pierces), as a person would: select all, then type over it.
 */
export async function fillEditor(page: Page, id: string, text: string): Promise<void> {
  // An editor on a tab not shown (the pipeline editor's JSON view): open its tab first.
  const panel = page.locator(`[role=tabpanel]:has(#${id})`);
  if (await panel.count() > 0 && await panel.isHidden()) {
    await page.click(`[role=tab][aria-controls="${await panel.getAttribute("id")}"]`);
  }
  const content = page.locator(`#${id} + .editor-host .cm-content`);
  await content.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

/**
 * An instance with the demo content and local sign-in, bootstrapped with `admin` (and, when given,
 * its one-time `password`), as the browser tests and the screenshots use it; `env` adds settings.
 */
export function demoServer(
  admin: string,
  password?: string,
  env: Record<string, string> = {},
): Promise<TestServer> {
  return startTestServer({
    env: {
      SERVICE_DEMO_ENABLED: "true",
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: admin,
      ...password ? { SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: password } : {},
      ...env,
    },
  });
}

/**
 * A demo instance (see `demoServer`) and a browser for one test; both are closed after `fn`,
 * however it ends.
 */
export async function withDemoBrowser(
  fn: (server: TestServer, browser: Browser) => Promise<void>,
  admin = "root@example.com",
  password?: string,
): Promise<void> {
  await withBrowser(demoServer(admin, password), fn);
}

/** Runs `fn` with the server `starting` answers and a fresh browser, closing both however it ends. */
export async function withBrowser(
  starting: Promise<TestServer>,
  fn: (server: TestServer, browser: Browser) => Promise<void>,
): Promise<void> {
  const server = await starting;
  const browser = await launchBrowser();
  try {
    await fn(server, browser);
  } finally {
    await browser.close();
    await server.close();
  }
}

/** A browser test (see `browserTest`) run in `withDemoBrowser`. */
export function demoBrowserTest(
  name: string,
  fn: (server: TestServer, browser: Browser) => Promise<void>,
  admin?: string,
  password?: string,
): void {
  browserTest(name, () => withDemoBrowser(fn, admin, password));
}

/** A page of its own for `user`, its console watched from the start, signed in. */
export async function userPage(
  browser: Browser,
  baseUrl: string,
  user: { email: string; password: string },
  options?: BrowserContextOptions,
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage(options);
  const problems = watchConsole(page);
  await signIn(page, baseUrl, user.email, user.password);
  return { page, problems };
}

/** A new local user of `server` (a super admin when `isAdmin`), signed in on a page of their own. */
export async function newUserPage(
  server: TestServer,
  browser: Browser,
  email: string,
  isAdmin = false,
): Promise<{ user: TestUser; page: Page; problems: string[] }> {
  const user = await createUser(server.runtime, email, { isAdmin });
  return { user, ...await userPage(browser, server.url, user) };
}

/**
 * The page as it is passes axe in both themes (left on dark): every rule in the light theme,
 * then, in the dark one, only the rules a theme can change (`COLOUR_RULES`). The themes differ in
 * colours alone, so running the rest again would find the same, at twice the cost.
 */
export async function accessibleInBothThemes(page: Page, label = ""): Promise<void> {
  for (const [theme, rules] of [["light", undefined], ["dark", COLOUR_RULES]] as const) {
    await page.evaluate((t) => document.documentElement.dataset.theme = t, theme);
    const found = await accessibilityProblems(page, rules && [...rules]);
    deepEqual(found, [], `${label} (${theme}): ${found.join("; ")}`);
  }
}

/** Clicks a guarded act's control, then confirms in the dialog it opens (ui/components/confirm.tsx). */
export async function confirmAct(page: Page, control: string): Promise<void> {
  await page.click(control);
  const dialog = page.locator("dialog[open]");
  await dialog.waitFor();
  await dialog.locator("button[type=submit]").click();
}

/** Opens the demo pipeline titled `title` from the demo folder's list. */
export async function openDemoPipeline(page: Page, baseUrl: string, title: string): Promise<void> {
  await page.goto(`${baseUrl}/pipelines?prefix=demo/`);
  await page.click(`text=${title}`);
}

/** The run form of the demo pipeline titled `title`, ready to post. */
export async function openDemoRunForm(page: Page, baseUrl: string, title: string): Promise<void> {
  await openDemoPipeline(page, baseUrl, title);
  await openRunForm(page);
}

/**
 * From a pipeline's page to its run form, ready to post: run.js takes over the form once the page
 * has loaded, and a click before that would post it.
 */
export async function openRunForm(page: Page): Promise<void> {
  await page.click(".page-head a.btn.primary:has-text('Run')");
  await page.locator("[data-run-form]").waitFor();
  await page.waitForLoadState("load");
}

/**
 * A pipeline in the demo workspace that runs long enough to be watched or cancelled: one node,
 * a cross join of a hundred billion rows. `user` (a super admin) creates it.
 */
export async function slowDemoPipeline(
  server: TestServer,
  user: { id: string; email: string },
) {
  const demo = (await server.runtime.workspaces.get("demo"))!;
  const actor: Principal = {
    userId: user.id,
    email: user.email,
    displayName: user.email,
    provider: "local",
    isSuperAdmin: true,
    authMethod: "OIDC",
    mustChangePassword: false,
    scopes: [],
  };
  return await server.runtime.pipelines.create({ actor, workspaceId: demo.id }, {
    name: "demo/slow",
    nodes: [{
      id: "forever",
      type: "DQL",
      source: "tempdb",
      sql: "SELECT sum(a.range * b.range) AS n FROM range(100000) a, range(1000000) b",
    }],
  });
}
