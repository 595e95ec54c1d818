/**
 * `deno task screenshots`: a PNG of every page in the light and the dark theme, written to
 * `screenshots/` (git-ignored), so anyone can look at the product without clicking through it.
 * It boots a fresh instance with the demo content and signs in as its quick-start admin.
 */
import { launchBrowser, signIn } from "../tests/browser.ts";
import { startTestServer } from "../tests/harness.ts";

const EMAIL = "admin@example.com";
const FIRST = "first-password-123";
const PASSWORD = "a-better-password-456";
const OUT = new URL("../screenshots/", import.meta.url);

/** The pages after sign-in, by file name. */
const PAGES: Record<string, string> = {
  dashboard: "/dashboard",
  error_codes: "/docs/errors",
};

const server = await startTestServer({
  env: {
    SERVICE_DEMO_ENABLED: "true",
    SERVICE_AUTH_LOCAL_ENABLED: "true",
    SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: EMAIL,
    SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: FIRST,
  },
});
const browser = await launchBrowser();
try {
  await Deno.mkdir(OUT, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  await shoot(page, "landing");
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
  console.log(`screenshots written to ${OUT.pathname}`);
} finally {
  await browser.close();
  await server.close();
}

async function shoot(page: import("playwright-core").Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate((s) => document.documentElement.dataset.theme = s, scheme);
    await page.screenshot({ path: new URL(`${name}.${scheme}.png`, OUT).pathname, fullPage: true });
  }
}
