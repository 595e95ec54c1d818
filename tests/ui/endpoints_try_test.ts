/**
 * Issue 23 item 1 in a real browser: an author of the demo workspace publishes a released pipeline
 * from its page (the path builder proposing its parameters, each refusal on its field), tries it
 * with a key made on the spot and gets a 200 with its rows, and the key works from outside too;
 * then binds an endpoint key and watches an unbound key refused, disables, enables and unpublishes
 * (behind a dialog). A browser session calling /api/x keeps its 401 and is told to use a key.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import type { Principal } from "../../src/identity/mod.ts";
import { createUser } from "../support/access_fixtures.ts";
import { accessibleInBothThemes, demoBrowserTest, userPage } from "../support/browser.ts";
import type { TestServer } from "../support/harness.ts";
import { writerPipeline } from "../support/pipeline_body.ts";

const PATTERN = "/shop/top-customers/{country}";

/** A member of the demo workspace with the author flag, signed in on a page of their own. */
async function demoAuthor(s: TestServer, browser: Browser, email: string) {
  const boss = await createUser(s.runtime, `boss-${email}`, { isAdmin: true });
  const user = await createUser(s.runtime, email);
  await s.runtime.workspaces.addMember(boss.principal, "demo", { email, author: true });
  s.runtime.directory.forgetWorkspaces();
  return { user, ...await userPage(browser, s.url, user) };
}

/** A released demo pipeline whose one node writes into a datasource table: not publishable. */
async function demoWriter(s: TestServer, actor: Principal) {
  const demo = await s.runtime.db.first<{ id: string }>(
    "SELECT id FROM workspaces WHERE name = 'demo'",
  );
  return await writerPipeline(s, { actor, workspaceId: demo!.id }, "demo/copy");
}

/** Publishes from the form on the page it is on; answers the page's field error, if any. */
async function submitPublish(page: Page, path: string) {
  await page.fill("#publish-path", path);
  await page.click("button:has-text('Publish')");
  await page.waitForLoadState();
}

/** A call as a program makes it. */
async function callWith(s: TestServer, key: string, path: string) {
  const res = await fetch(`${s.url}/api/x${path}`, { headers: { "SVC-API-Key": key } });
  return { status: res.status, body: await res.json() };
}

/** Makes a key in the try-it panel (the keys page's own form) and answers its secret. */
async function keyMadeInPanel(page: Page, kind = "user"): Promise<string> {
  await page.selectOption("#try-key", "new");
  const slot = page.locator("#key-create-slot");
  await slot.waitFor();
  await slot.locator("#key-kind").selectOption(kind);
  await slot.locator("button:has-text('Create key')").click();
  return (await page.locator("#issued-secret").innerText()).trim();
}

demoBrowserTest(
  "issue 23 item 1: publish a pipeline from its page and get a 200 from the try-it panel",
  async (s, browser) => {
    const { user, page, problems } = await demoAuthor(s, browser, "pat@example.com");
    const writes = await demoWriter(s, user.principal);
    await page.goto(`${s.url}/pipelines?prefix=demo/`);
    await page.click("text=Top customers (report)");
    const pipelineUrl = page.url();
    await page.click("a:has-text('Publish as endpoint')");
    await page.waitForURL("**/publish");
    await accessibleInBothThemes(page, "publish page");

    // The path builder: a parameter proposed as a segment, spent once used; the URL as typed.
    await page.fill("#publish-path", "/shop/top-customers/");
    const chip = page.locator("button[data-path-append='/{country}']");
    await chip.click();
    equal(await page.inputValue("#publish-path"), PATTERN);
    ok(await chip.isDisabled(), "a used parameter is proposed again");
    match(
      await page.locator("#publish-url").innerText(),
      /\/api\/x\/shop\/top-customers\/\{country\}$/,
    );

    // Each refusal on the field it concerns, what was typed kept.
    await submitPublish(page, "/Shop/top");
    match(await page.locator("#publish-path-error").innerText(), /not valid: .*segment/);
    equal(await page.inputValue("#publish-path"), "/Shop/top");
    await submitPublish(page, "/shop/{region}");
    match(
      await page.locator("#publish-path-error").innerText(),
      /\{region\} is not a parameter of release v1; its parameters are country, limit, min_orders, segment/,
    );
    await accessibleInBothThemes(page, "publish page, refused");
    await submitPublish(page, PATTERN);
    await page.waitForURL("**/endpoints/view?**");
    match(
      await page.locator(".banner.ok").innerText(),
      /Published \/shop\/top-customers\/\{country\}/,
    );

    // A second path some URL shares with the first, and a pipeline that writes.
    await page.goto(`${pipelineUrl}/publish`);
    await submitPublish(page, "/shop/top-customers/de");
    match(
      await page.locator("#publish-path-error").innerText(),
      /match both this path and \/shop\/top-customers\/\{country\}/,
    );
    await page.goto(`${s.url}/pipelines/${writes}/publish`);
    await submitPublish(page, "/copy");
    match(
      await page.locator("#publish-pipeline-error").innerText(),
      /Node copy: its output goes to a datasource\. Only pipelines whose every node only reads/,
    );
    equal(await page.locator("form[data-error-code='endpoint.pipeline_not_readonly']").count(), 1);

    // The pipeline page says where it is published.
    await page.goto(pipelineUrl);
    await page.click(`.published-at a:has-text('${PATTERN}')`);
    await page.waitForURL("**/endpoints/view?**");
    await accessibleInBothThemes(page, "endpoint page");

    // Try it with a key made on the spot: its secret is in the call, the answer is live.
    const secret = await keyMadeInPanel(page);
    match(secret, /^svck_[a-z2-7]+\.[a-z2-7]+$/);
    match(await page.locator("#try-curl").innerText(), new RegExp(`SVC-API-Key: ${secret}`));
    await page.fill("#try-limit", "3");
    match(
      await page.locator("#try-curl").innerText(),
      /\/api\/x\/shop\/top-customers\/DE\?limit=3"$/,
    );
    await page.click("#try-send");
    await page.locator("#try-table .result-table").waitFor();
    equal(await page.locator("#try-status").innerText(), "200 OK");
    match(
      await page.locator("#try-timing").innerText(),
      /Server-Timing: queue;dur=[\d.]+, execute;dur=[\d.]+, serialise;dur=[\d.]+/,
    );
    equal(await page.locator("#try-table .result-table tbody tr").count(), 3);
    match(await page.locator("#try-table .result-table").innerText(), /COUNTRY[\s\S]*DE/i);
    await accessibleInBothThemes(page, "endpoint page, answered");

    // The same key, from outside the browser.
    const called = await callWith(s, secret, "/shop/top-customers/FR?limit=2");
    equal(called.status, 200, JSON.stringify(called.body));
    equal(called.body.rows.length, 2);

    // A request defect lands on its parameter.
    await page.fill("#try-limit", "1000");
    await page.click("#try-send");
    await page.locator("#try-limit-error:not(:empty)").waitFor();
    equal(await page.locator("#try-status").innerText(), "400 Bad Request");
    match(await page.locator("#try-error").innerText(), /endpoint\.request\.invalid/);

    // The secret went nowhere but the call: not in the page's address, not in storage.
    ok(!page.url().includes(secret.split(".")[1]));
    const stored = await page.evaluate(() =>
      JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie])
    );
    ok(!stored.includes(secret.split(".")[1]), "the secret in browser storage");

    // This browser's session on /api/x: the spec's 401, saying to use a key and where.
    const direct = await page.goto(`${s.url}/api/x/shop/top-customers/DE`);
    equal(direct?.status(), 401);
    const refusal = JSON.parse(await page.locator("body").innerText());
    equal(refusal.error.code, "auth.api_key.missing");
    equal(refusal.error.details.keys_url, `${s.url}/settings/api-keys`);
    // Only the refusals the test asked for.
    deepEqual(problems.filter((p) => !/\b(400|401|409)\b/.test(p)), []);
  },
);

demoBrowserTest(
  "issue 23 item 1: bind an endpoint key and see an unbound key refused; disable, enable, unpublish",
  async (s, browser) => {
    const { page, problems } = await demoAuthor(s, browser, "kim@example.com");
    await page.goto(`${s.url}/pipelines?prefix=demo/`);
    await page.click("text=Top customers (report)");
    await page.click("a:has-text('Publish as endpoint')");
    await submitPublish(page, PATTERN);
    await page.waitForURL("**/endpoints/view?**");

    // An endpoint key made on the keys page.
    await page.goto(`${s.url}/settings/api-keys`);
    await page.fill("#key-name", "feed");
    await page.selectOption("#key-kind", "endpoint");
    await page.click("button:has-text('Create key')");
    const feed = (await page.locator("#issued-secret").innerText()).trim();

    // Bind it on the Endpoints page; a node outside the grammar is refused on its field.
    await page.goto(`${s.url}/endpoints`);
    await page.selectOption("#bind-key", "feed");
    await page.fill("#bind-path", "/Shop");
    await page.click("button:has-text('Bind')");
    match(await page.locator("#bind-path-error").innerText(), /Not a node of the endpoint tree/);
    await page.fill("#bind-path", "/shop");
    await page.click("button:has-text('Bind')");
    await page.waitForURL(/bound=feed/);
    match(await page.locator(".banner.ok").innerText(), /Bound feed to \/shop/);
    const row = page.locator("table.endpoints tbody tr", { hasText: PATTERN });
    match(await row.innerText(), /\/shop\s*→\s*feed/);
    await accessibleInBothThemes(page, "endpoints page");

    // In the panel: a user key made now is refused there, the bound key is served.
    await row.locator("a:has-text('Try it')").click();
    await page.waitForURL("**/endpoints/view?**");
    match(
      await page.locator("#try-key option[data-name='feed']").innerText(),
      /endpoint key, bound at \/shop/,
    );
    const unbound = await keyMadeInPanel(page, "user");
    await page.click("#try-send");
    await page.locator("#try-error .banner").waitFor();
    equal(await page.locator("#try-status").innerText(), "403 Forbidden");
    match(await page.locator("#try-error").innerText(), /endpoint\.key_not_bound/);
    equal(
      (await callWith(s, unbound, "/shop/top-customers/DE")).body.error.code,
      "endpoint.key_not_bound",
    );
    await page.selectOption("#try-key", { label: "feed (endpoint key, bound at /shop)" });
    await page.click("#try-send");
    match(await page.locator("#try-secret-error").innerText(), /Paste the secret of feed/);
    await page.fill("#try-secret", feed);
    match(await page.locator("#try-curl-note").innerText(), /\$KEY is the secret of your key feed/);
    ok(
      !(await page.locator("#try-curl").innerText()).includes(feed),
      "a pasted secret in the curl",
    );
    await page.click("#try-send");
    await page.locator("#try-table .result-table").waitFor();
    equal(await page.locator("#try-status").innerText(), "200 OK");

    // Disabled, it answers as an unknown path; enabled, it serves again.
    await page.click(".page-head button:has-text('Disable')");
    await page.waitForURL(/disabled=/);
    equal((await callWith(s, feed, "/shop/top-customers/DE")).status, 404);
    await page.click(".page-head button:has-text('Enable')");
    await page.waitForURL(/enabled=/);
    equal((await callWith(s, feed, "/shop/top-customers/DE")).status, 200);

    // Unbind: the user keys of the workspace may call again.
    await page.goto(`${s.url}/endpoints`);
    await page.click("button[aria-label='Unbind feed from /shop']");
    await page.waitForURL(/unbound=feed/);
    equal((await callWith(s, unbound, "/shop/top-customers/DE")).status, 200);

    // Unpublish asks first and says what stops working; Cancel keeps it.
    const unpublish = page.locator(`a[aria-label='Unpublish ${PATTERN}']`);
    await unpublish.click();
    const dialog = page.locator("dialog[open]");
    await dialog.waitFor();
    match(
      await dialog.innerText(),
      /Unpublish \/shop\/top-customers\/\{country\}\?[\s\S]*answers 404 at once/,
    );
    await accessibleInBothThemes(page, "unpublish dialog");
    await dialog.locator("a:has-text('Cancel')").click();
    await dialog.waitFor({ state: "detached" });
    equal((await callWith(s, unbound, "/shop/top-customers/DE")).status, 200);
    await unpublish.click();
    await dialog.locator("button:has-text('Unpublish')").click();
    await page.waitForURL(/unpublished=/);
    match(await page.locator(".empty").first().innerText(), /No endpoints published yet/);
    equal((await callWith(s, unbound, "/shop/top-customers/DE")).status, 404);
    // Only the refusals the test asked for: the bind's 400 and the unbound key's 403.
    deepEqual(problems.filter((p) => !/\b(400|403)\b/.test(p)), []);
  },
);
