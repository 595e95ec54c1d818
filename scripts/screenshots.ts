/**
 * `deno task screenshots`: a PNG of every page in the light and the dark theme, written to
 * `screenshots/` (git-ignored), so anyone can look at the product without clicking through it.
 * It boots a fresh instance with the demo content and signs in as its quick-start admin.
 * Names given as arguments (`deno task screenshots pipeline_editor runs`) limit which are written;
 * a name covers its 390 px twin (`api_keys` also writes `api_keys.narrow.*`).
 */
import { createUser, sessionHeaders } from "../tests/support/access_fixtures.ts";
import type { Page } from "playwright-core";
import { demoServer, launchBrowser, signIn } from "../tests/support/browser.ts";
import { call, startTestServer, type TestServer } from "../tests/support/harness.ts";

const EMAIL = "admin@example.com";
const FIRST = "first-password-123";
const PASSWORD = "a-better-password-456";
const OUT = new URL("../screenshots/", import.meta.url);
const ONLY = new Set(Deno.args);
const LAPTOP = { width: 1360, height: 860 };
const PHONE = { width: 390, height: 844 };

/** The pages after sign-in, by file name. */
const PAGES: Record<string, string> = {
  dashboard: "/dashboard",
  pipelines: "/pipelines",
  pipelines_folder: "/pipelines?prefix=demo/",
  pipelines_search: "/pipelines?q=customers",
  templates: "/templates?prefix=demo/shop/",
  template: "/templates/view?id=demo/shop/revenue_by_country",
  datasources: "/datasources",
  datasource: "/datasources/demo_shop",
  endpoints_empty: "/endpoints",
  template_editor: "/templates/edit?id=demo/shop/revenue_by_country",
  datasource_new: "/datasources/new",
  pipeline_new: "/pipelines/new",
  error_codes: "/docs/errors",
};

/** Public pages, before sign-in. */
const PUBLIC_PAGES: Record<string, string> = {
  site_how_it_works: "/how-it-works",
  site_published_api: "/published-api",
  site_compare: "/compare/platformatic-db",
  docs_index: "/docs",
  docs_page: "/docs/endpoints",
};

// A hardened production instance in this process is the demo instance's promotion target.
const production = await startTestServer({
  env: { SERVICE_DEPLOYMENT_NAME: "production", SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "false" },
});
// Its super admin, in the workspace promotion fills (the demo's, by name).
const ops = await sessionHeaders(
  production.runtime,
  await createUser(production.runtime, "ops@example.com", { isAdmin: true }),
  "demo",
);
const server = await demoServer(EMAIL, FIRST, await promotionTarget(production, ops));
const browser = await launchBrowser();
try {
  await Deno.mkdir(OUT, { recursive: true });
  const context = await browser.newContext({ viewport: LAPTOP });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  await shootBoth(page, "landing");
  for (const [name, path] of Object.entries(PUBLIC_PAGES)) {
    await page.goto(server.url + path);
    await (name === "docs_page" ? shootBoth(page, name) : shoot(page, name));
  }
  // The site's links folded behind the menu on a phone, opened.
  await page.setViewportSize(PHONE);
  await page.click(".public-top .nav-toggle");
  await shoot(page, "site_menu.narrow", false);
  await page.setViewportSize(LAPTOP);
  await page.goto(`${server.url}/login`);
  await shoot(page, "login");
  await signIn(page, server.url, EMAIL, FIRST);
  await shoot(page, "change_password");
  await page.fill("input[name=current_password]", FIRST);
  await page.fill("input[name=new_password]", PASSWORD);
  await Promise.all([page.waitForURL("**/dashboard"), page.click("button[type=submit]")]);
  for (const [name, path] of Object.entries(PAGES)) {
    await page.goto(server.url + path);
    await shoot(page, name);
  }
  // The docs as a signed-in reader sees them: their name leads back to the app.
  await page.goto(`${server.url}/docs/endpoints`);
  await shootBoth(page, "docs_signed_in");
  await endpointPages(page);
  // One page per demo pipeline, named after its path.
  await page.goto(`${server.url}/pipelines?prefix=demo/`);
  const links = await page.locator("td a.title:not(.folder)").evaluateAll((as) =>
    as.map((a) => [a.textContent ?? "", (a as HTMLAnchorElement).href])
  );
  for (const [text, href] of links) {
    await page.goto(href);
    await shoot(page, `pipeline_${text.replace(/\W+/g, "_").toLowerCase()}`);
  }
  // The schema browser opened down to a table's columns.
  await page.goto(`${server.url}/datasources/demo_shop`);
  await page.click(".schema-list a >> nth=0");
  await page.locator("#tables li a").first().click();
  await page.locator("#columns table").waitFor();
  await page.click("button:has-text('Test connection')");
  await page.locator("#test-outcome [role=status]").waitFor();
  await shoot(page, "datasource_browsed");
  // A run through the form, watched to its end, then its result with the chart.
  await page.goto(`${server.url}/pipelines?prefix=demo/`);
  await page.click("text=Revenue against target");
  await page.click(".page-head a.btn.primary");
  await shoot(page, "run_form");
  await page.click("button:has-text('Run pipeline')");
  await page.locator("#run-live .result-table").waitFor();
  await shoot(page, "run_done");
  await page.click("a:has-text('Open')");
  await page.locator("[data-chart] canvas").waitFor();
  await shoot(page, "result");
  await page.goto(`${server.url}/runs`);
  await shoot(page, "runs");
  // A second version of a demo pipeline, compared with the release.
  await page.goto(`${server.url}/pipelines?prefix=demo/`);
  await page.click("text=Top customers (report)");
  const pipelineUrl = page.url();
  await page.click("a:has-text('Edit')");
  await page.locator("[role=tab][aria-selected=true]").waitFor();
  await shoot(page, "pipeline_editor");
  await page.click("[role=tab]:has-text('JSON')");
  await shoot(page, "pipeline_editor_json");
  await page.click("[role=tab]:has-text('Form')");
  // A refused save: the error under the parameter default it names.
  await page.fill("#p-1-default", "lots");
  await page.click("button:has-text('Save draft')");
  await page.locator("#p-1-default-error").waitFor();
  await shoot(page, "pipeline_editor_error");
  await page.goto(`${pipelineUrl}/edit`);
  await page.fill("#p-description", "Top customers by revenue, with a segment filter.");
  await page.click("button:has-text('Save draft')");
  await page.goto(`${pipelineUrl}/compare`);
  await shoot(page, "pipeline_compare");
  // Guarded version acts: releasing the draft names the endpoints it moves forward; discarding
  // that release names them moving back.
  await page.goto(pipelineUrl);
  await page.click(".page-head a:has-text('Release')");
  await page.locator("dialog[open]").waitFor();
  await shootBoth(page, "confirm_release");
  await page.click("dialog[open] button[type=submit]");
  await page.locator(".banner.ok").waitFor();
  await page.click("tr:has(td:has-text('v2')) a:has-text('Discard')");
  await page.locator("dialog[open]").waitFor();
  await shootBoth(page, "confirm_discard");
  // A viewer's editors: everything shown, nothing to change or save.
  const viewer = await createUser(server.runtime, "viewer@example.com");
  const viewerPage = await (await browser.newContext({ viewport: LAPTOP })).newPage();
  await signIn(viewerPage, server.url, viewer.email, viewer.password);
  await viewerPage.goto(`${pipelineUrl}/edit`);
  await shootBoth(viewerPage, "pipeline_editor_read_only");
  await viewerPage.goto(`${server.url}/templates/edit?id=demo/shop/revenue_by_country`);
  await viewerPage.locator(".editor-host").first().waitFor();
  await shootBoth(viewerPage, "template_editor_read_only");
  // The audit log of everything above, one row opened; narrowed to the workspace's publishing;
  // and at a phone's width.
  await page.goto(`${server.url}/audit`);
  await page.locator("tbody tr summary").first().click();
  await shoot(page, "audit");
  await page.goto(`${server.url}/audit?event=endpoint.published&scope=workspace`);
  await shoot(page, "audit_filtered");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${server.url}/audit`);
  await page.locator("tbody tr summary").first().click();
  await shoot(page, "audit_narrow");
  // A page of its own: the one above has been through phone widths and modal dialogs.
  const accountPage = await (await browser.newContext({ viewport: LAPTOP })).newPage();
  await signIn(accountPage, server.url, EMAIL, PASSWORD);
  await accountPages(accountPage);
  await userPages(accountPage);
  await workspacePages(accountPage);
  await promotionPages(accountPage, pipelineUrl);
  console.log(`screenshots written to ${OUT.pathname}`);
} finally {
  await browser.close();
  await server.close();
  await production.close();
}

/** A server key minted on `target` by its super admin, as the development side's settings. */
async function promotionTarget(
  target: TestServer,
  ops: Record<string, string>,
): Promise<Record<string, string>> {
  const minted = await call(target, "POST", "/api/v1/auth/api-keys", ops, {
    name: "from-development",
    kind: "server",
  });
  if (minted.status !== 201) throw new Error(`server key: ${JSON.stringify(minted.body)}`);
  return {
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: target.url,
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: String(minted.body.data.key),
  };
}

/**
 * Promotion of the demo report to production: the preview, the Push dialog and the outcome; then
 * a release that makes a parameter required, flagged as breaking; then a refusal (not newer).
 * Production gets the demo's datasources by name first, as its operators would register them.
 */
async function promotionPages(page: Page, pipelineUrl: string) {
  for (const name of ["demo_shop", "demo_crm"]) {
    const d = await (await page.request.get(`${server.url}/api/v1/datasources/${name}`)).json();
    const { display_name, dialect, jdbc_url, readonly, properties } = d.data;
    const made = await call(production, "POST", "/api/v1/datasources", ops, {
      name,
      display_name,
      dialect,
      jdbc_url,
      readonly,
      properties,
      credential: { kind: "none" },
    });
    if (made.status !== 201) throw new Error(`${name} on production: ${JSON.stringify(made.body)}`);
  }
  const push = async () => {
    await page.click(".page-head a:has-text('Push to')");
    await page.locator("dialog[open]").waitFor();
  };
  await page.goto(pipelineUrl);
  await page.click(".page-head a:has-text('Promote')");
  await page.locator(".promote-table").first().waitFor();
  await shootBoth(page, "promote_preview");
  await push();
  await shootBoth(page, "promote_confirm");
  await page.click("dialog[open] button[type=submit]");
  await page.locator(".banner.ok").waitFor();
  await shootBoth(page, "promote_outcome");
  // The next release makes `segment` required: production's endpoint callers would fail.
  const csrf = (await page.context().cookies()).find((c) => c.name === "svc_csrf")?.value ?? "";
  const id = pipelineUrl.split("/").at(-1);
  const api = `${server.url}/api/v1/pipelines/${id}`;
  const current = (await (await page.request.get(api)).json()).data;
  current.parameters.segment = { ...current.parameters.segment, required: true };
  const body = Object.fromEntries(
    ["name", "display_name", "description", "parameters", "nodes", "settings", "checks"]
      .filter((k) => current[k] !== undefined && current[k] !== null).map((k) => [k, current[k]]),
  );
  const saved = await page.request.put(api, {
    headers: { "SVC-CSRF-Token": csrf, "If-Match": current.body_hash },
    data: body,
  });
  if (!saved.ok()) throw new Error(`save: ${saved.status()} ${await saved.text()}`);
  const hash = (await saved.json()).data.body_hash;
  const released = await page.request.post(`${api}/release?release_pinned_templates=true`, {
    headers: { "SVC-CSRF-Token": csrf, "If-Match": hash },
  });
  if (!released.ok()) throw new Error(`release: ${released.status()} ${await released.text()}`);
  await page.goto(pipelineUrl);
  await page.click(".page-head a:has-text('Promote')");
  await page.locator(".breaking-banner").waitFor();
  await shootBoth(page, "promote_breaking");
  await push();
  await shootBoth(page, "promote_confirm_breaking");
  await page.click("dialog[open] button[type=submit]");
  await page.locator(".banner.ok").waitFor();
  await page.goto(pipelineUrl);
  await page.click(".page-head a:has-text('Promote')");
  await page.locator(".promote-refusal").waitFor();
  await shootBoth(page, "promote_refused");
}

/**
 * The account menu, the API keys page (empty, a secret shown once, the revoke dialog) and a
 * signed-in not-found page, each at laptop width and at 390 px (`*.narrow.*`).
 */
async function accountPages(page: Page) {
  for (const [width, suffix] of [[1360, ""], [390, ".narrow"]] as const) {
    await page.setViewportSize({ width, height: 860 });
    await page.goto(`${server.url}/settings/api-keys`);
    await shoot(page, `api_keys${suffix}`);
    await page.click(".account-menu summary");
    await shoot(page, `account_menu${suffix}`, false);
    await page.click(".account-menu summary");
    await page.fill("#key-name", `reporting${suffix}`);
    await page.selectOption("#key-scope", "execute");
    await page.click("button:has-text('Create key')");
    await page.locator("#issued-secret").waitFor();
    await shoot(page, `api_key_issued${suffix}`);
    await page.goto(`${server.url}/settings/api-keys`);
    await page.locator("#key-list a:has-text('Revoke')").first().click();
    await page.locator("dialog[open]").waitFor();
    await shoot(page, `api_key_revoke${suffix}`, false);
    await page.goto(`${server.url}/no/such/page`);
    await shoot(page, `not_found_signed_in${suffix}`);
  }
  await page.setViewportSize({ width: 1360, height: 860 });
}

/**
 * The users pages (super admin): the list, the new local user form and its one-time password, one
 * user's page and its reset dialog, each at laptop width and at 390 px (`*.narrow.*`).
 */
async function userPages(page: Page) {
  for (const [width, suffix] of [[1360, ""], [390, ".narrow"]] as const) {
    await page.setViewportSize({ width, height: 860 });
    await page.goto(`${server.url}/admin/users`);
    await shoot(page, `users${suffix}`);
    await page.goto(`${server.url}/admin/users/new`);
    await shoot(page, `user_new${suffix}`);
    await page.fill("#user-email", `dana${suffix.replace(".", "-")}@example.com`);
    await page.fill("#user-display-name", "Dana Analyst");
    await page.selectOption("#user-workspace", "demo");
    await page.check("#user-author");
    await page.click("button:has-text('Create user')");
    await page.locator("#one-time-password").waitFor();
    await shoot(page, `user_created${suffix}`);
    await page.click("#create-slot a:has-text('Open')");
    await page.locator(".user-acts").waitFor();
    await shoot(page, `user${suffix}`);
    await page.click(".user-acts a:has-text('Reset password')");
    await page.locator("dialog[open]").waitFor();
    await shoot(page, `user_reset_confirm${suffix}`, false);
    await page.click("dialog[open] button[type=submit]");
    await page.locator("#one-time-password").waitFor();
    await shoot(page, `user_reset${suffix}`);
  }
  await page.setViewportSize({ width: 1360, height: 860 });
}

/**
 * Workspace administration: the demo's members (two people added through the form, one invited),
 * a last-admin refusal on its row, the remove dialog; then every workspace of the instance, one
 * deactivated, and the deactivate dialog. Each at laptop width and at 390 px (`*.narrow.*`).
 */
async function workspacePages(page: Page) {
  for (const email of ["ana.ortiz@example.com", "ben@example.com"]) {
    await createUser(server.runtime, email);
  }
  await page.goto(`${server.url}/workspace`);
  for (
    const [email, flags] of [
      ["ana.ortiz@example.com", ["admin"]],
      ["ben@example.com", ["promoter", "author"]],
      ["carla@example.com", ["author"]],
    ] as const
  ) {
    await page.fill("#add-email", email);
    for (const flag of flags) await page.check(`#add-${flag}`);
    await Promise.all([page.waitForURL(/done=/), page.click("text=Add member")]);
  }
  await page.goto(`${server.url}/admin/workspaces`);
  for (const name of ["sales", "archive"]) {
    await page.fill("#new-ws-name", name);
    await page.fill("#new-ws-display-name", name === "sales" ? "Sales" : "Archive 2024");
    await Promise.all([page.waitForURL(/done=created/), page.click("text=Create workspace")]);
  }
  await page.goto(`${server.url}/admin/workspaces?confirm=deactivate&name=archive`);
  await page.click("dialog[open] button[type=submit]");
  await page.waitForURL(/done=deactivated/);
  for (const [width, suffix] of [[1360, ""], [390, ".narrow"]] as const) {
    await page.setViewportSize({ width, height: 860 });
    await page.goto(`${server.url}/workspace`);
    await shoot(page, `workspace${suffix}`);
    const ana = page.locator("table.members tr", { hasText: "ana.ortiz@example.com" });
    await ana.locator("input[name=admin]").uncheck();
    await ana.locator("button:has-text('Save')").click();
    await page.locator("table.members [role=alert]").waitFor();
    await shoot(page, `workspace_last_admin${suffix}`);
    await page.locator("table.members tr", { hasText: "ben@example.com" })
      .locator("a:has-text('Remove')").click();
    await page.locator("dialog[open]").waitFor();
    await shoot(page, `workspace_remove${suffix}`, false);
    await page.goto(`${server.url}/admin/workspaces`);
    await shoot(page, `admin_workspaces${suffix}`);
    await page.locator("tr", { hasText: "sales" }).locator("a:has-text('Deactivate')").click();
    await page.locator("dialog[open]").waitFor();
    await shoot(page, `admin_workspace_deactivate${suffix}`, false);
  }
  await page.setViewportSize({ width: 1360, height: 860 });
}

/**
 * Publishing from the browser (issue 23 item 1): the demo report's publish page (and a refusal on
 * its path), the endpoint's page tried with a key made on the spot, a second pattern published
 * disabled, the list, and the Unpublish question; at laptop width and at 390 px.
 */
async function endpointPages(page: Page) {
  await page.goto(`${server.url}/pipelines?prefix=demo/`);
  await page.click("text=Top customers (report)");
  const pipelineUrl = page.url();
  await page.click("a:has-text('Publish as endpoint')");
  await page.fill("#publish-path", "/shop/top-customers/");
  await shootBoth(page, "endpoint_publish");
  await page.fill("#publish-path", "/shop/{region}");
  await page.click("button:has-text('Publish')");
  await page.locator("#publish-path-error").waitFor();
  await shootBoth(page, "endpoint_publish_refused");
  await page.fill("#publish-path", "/shop/top-customers/");
  await page.click("button[data-path-append='/{country}']");
  await page.fill("#publish-description", "Top customers of a country");
  await page.click("button:has-text('Publish')");
  await page.waitForURL("**/endpoints/view?**");
  await shootBoth(page, "endpoint");
  await page.selectOption("#try-key", "new");
  await page.click("#key-create-slot button:has-text('Create key')");
  await page.locator("#issued-secret").waitFor();
  await page.fill("#try-limit", "5");
  await page.click("#try-send");
  await page.locator("#try-table .result-table").waitFor();
  // From the top: a full-page shot of a scrolled page draws the sticky top bar mid-page.
  await page.evaluate(() => scrollTo(0, 0));
  await shootBoth(page, "endpoint_tried");
  await page.goto(`${pipelineUrl}/publish`);
  await page.fill("#publish-path", "/shop/top-customers-draft/{country}");
  await page.uncheck("#publish-enabled");
  await page.click("button:has-text('Publish')");
  await page.waitForURL("**/endpoints/view?**");
  await page.goto(`${server.url}/endpoints`);
  await shootBoth(page, "endpoints");
  await page.click("a[aria-label^='Unpublish /shop/top-customers-draft']");
  await page.locator("dialog[open]").waitFor();
  await shootBoth(page, "endpoint_unpublish");
  await page.goto(pipelineUrl);
  await shootBoth(page, "pipeline_published");
}

async function shoot(page: Page, name: string, fullPage = true) {
  if (ONLY.size > 0 && !ONLY.has(name.replace(/\.narrow$/, ""))) return;
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate((s) => document.documentElement.dataset.theme = s, scheme);
    await page.screenshot({ path: new URL(`${name}.${scheme}.png`, OUT).pathname, fullPage });
  }
}

/** `name` at laptop width, then as `name.narrow` on a phone's width. */
async function shootBoth(page: import("playwright-core").Page, name: string) {
  await shoot(page, name);
  await page.setViewportSize(PHONE);
  await shoot(page, `${name}.narrow`);
  await page.setViewportSize(LAPTOP);
}
