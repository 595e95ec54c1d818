/**
 * Issue 23 items 7 and 8 in a real browser: a version act that changes what a published endpoint
 * serves asks first, naming the endpoint and the release it will serve (Cancel does nothing,
 * confirming acts); and a viewer opens both editor pages read-only, while the partials behind
 * their save still refuse them.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import type { JsonObject } from "../../src/versions/mod.ts";
import type { Principal } from "../../src/identity/mod.ts";
import { accessibleInBothThemes, demoBrowserTest, newUserPage } from "../support/browser.ts";
import type { TestServer } from "../support/harness.ts";
import { dql, pipelineBody } from "../support/pipeline_body.ts";

/** A read-only pipeline with two releases, v2 the latest, published at `/served/{team}`. */
async function servedTwice(s: TestServer, actor: Principal) {
  const demo = await s.runtime.db.first<{ id: string }>(
    "SELECT id FROM workspaces WHERE name = 'demo'",
  );
  const ctx = { actor, workspaceId: demo!.id };
  const life = s.runtime.pipelines.lifecycle;
  const body = (sql: string) =>
    pipelineBody({
      name: "team/served",
      parameters: { team: { type: "string" } },
      nodes: [dql("read", { source: "tempdb", sql })],
    }) as JsonObject;
  const v1 = await life.create(ctx, {
    name: "team/served",
    body: body("SELECT :team AS t"),
    attrs: {},
  });
  await life.release(ctx, v1.entity.id, v1.version.body_hash);
  const v2 = await life.update(ctx, v1.entity.id, v1.version.body_hash, {
    body: body("SELECT :team || '!' AS t"),
  });
  await life.release(ctx, v1.entity.id, v2.version.body_hash);
  return v1.entity.id;
}

/** A REST call made with the page's own session (and its CSRF token). */
async function api(page: Page, method: string, path: string, body?: unknown) {
  const csrf = (await page.context().cookies()).find((c) => c.name === "svc_csrf")!.value;
  return await page.evaluate(async ([method, path, token, body]) => {
    const res = await fetch(path, {
      method,
      headers: { "SVC-CSRF-Token": token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }, [method, path, csrf, body] as const);
}

async function versionStatuses(page: Page, id: string) {
  const res = await api(page, "GET", `/api/v1/pipelines/${id}/versions`);
  equal(res.status, 200, JSON.stringify(res.body));
  // deno-lint-ignore no-explicit-any
  const items: any[] = res.body.data?.items ?? res.body.items;
  return Object.fromEntries(items.map((v) => [v.version, v.status]));
}

/** The element that has focus, as its text. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim());

demoBrowserTest(
  "issue 23 item 7: discarding a release an endpoint serves names the endpoint first",
  async (s, browser) => {
    const { user, page, problems } = await newUserPage(s, browser, "boss@example.com", true);
    const id = await servedTwice(s, user.principal);
    const published = await api(page, "POST", "/api/v1/endpoints", {
      path_pattern: "/served/{team}",
      pipeline_id: id,
    });
    equal(published.status, 201, JSON.stringify(published.body));

    // Without a script the same question is a page: the dialog drawn open, the act a post.
    const html = await page.evaluate(
      (path) => fetch(path).then((r) => r.text()),
      `/pipelines/${id}?confirm=discard-2`,
    );
    match(html, /<dialog[^>]* open[^>]*>/);
    match(html, new RegExp(`action="/partials/pipelines/${id}/versions/2/discard"`));
    match(html, /\/served\/\{team\}<\/code>: will serve v1 instead of v2/);

    const posts: string[] = [];
    page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
    await page.goto(`${s.url}/pipelines/${id}`);
    await page.click("tr:has(td:has-text('v2')) a:has-text('Discard')");
    const dialog = page.locator("dialog[open]");
    await dialog.waitFor();
    ok(await dialog.evaluate((d) => d.matches(":modal")), "the dialog is modal");
    equal(await focused(page), "Cancel");
    match(await dialog.innerText(), /Discard v2\?/);
    match(await dialog.innerText(), /\/served\/\{team\}: will serve v1 instead of v2/);
    await accessibleInBothThemes(page, "discard dialog");

    // Cancel does nothing: no post, v2 still released and served.
    const at = page.url();
    await dialog.locator("a:has-text('Cancel')").click();
    await dialog.waitFor({ state: "detached" });
    equal(page.url(), at);
    deepEqual(posts, []);
    deepEqual(await versionStatuses(page, id), { 1: "RELEASED", 2: "RELEASED" });
    equal(await focused(page), "Discard");

    // Escape closes it too; confirming acts.
    await page.click("tr:has(td:has-text('v2')) a:has-text('Discard')");
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.click("tr:has(td:has-text('v2')) a:has-text('Discard')");
    await dialog.locator("button:has-text('Discard v2')").click();
    await page.locator(".banner.ok:has-text('Discarded v2')").waitFor();
    deepEqual(await versionStatuses(page, id), { 1: "RELEASED", 2: "DISCARDED" });
    await page.goto(`${s.url}/endpoints`);
    match(await page.locator("table.endpoints").innerText(), /serves release v1/);

    // Restoring v2 moves the endpoint forward again, and says so.
    await page.goto(`${s.url}/pipelines/${id}`);
    await page.click("tr:has(td:has-text('v2')) a:has-text('Restore')");
    match(await dialog.innerText(), /will serve v2 instead of v1/);
    await dialog.locator("button:has-text('Restore v2')").click();
    await page.locator(".banner.ok:has-text('Restored v2')").waitFor();
    deepEqual(problems, []);
  },
);

demoBrowserTest(
  "issue 23 item 8: a viewer opens the pipeline and template editors read-only",
  async (s, browser) => {
    const { page, problems } = await newUserPage(s, browser, "looker@example.com");
    await page.goto(`${s.url}/pipelines?prefix=demo/`);
    const report = await page.locator('a.title:has-text("Revenue against target")')
      .getAttribute("href");

    const editor = await page.goto(`${s.url}${report}/edit`);
    equal(editor?.status(), 200);
    equal(await page.locator("button:has-text('Save'), button:has-text('Release')").count(), 0);
    ok(await page.locator("#p-display").isDisabled());
    const display = await page.locator("#p-display").inputValue();
    await page.locator("#p-display").click({ force: true });
    await page.keyboard.type("changed");
    equal(await page.locator("#p-display").inputValue(), display);
    await page.click("#tab-json");
    const spec = await page.locator("#p-spec").inputValue();
    await page.locator("#p-spec + .editor-host .cm-content").click();
    await page.keyboard.type("typed");
    equal(await page.locator("#p-spec").inputValue(), spec);
    ok(!(await page.locator("#p-spec + .editor-host .cm-content").innerText()).includes("typed"));
    await accessibleInBothThemes(page, "read-only pipeline editor");

    const template = "/templates/edit?id=demo/shop/revenue_by_country";
    equal((await page.goto(s.url + template))?.status(), 200);
    equal(await page.locator("button:has-text('Save'), button:has-text('Create')").count(), 0);
    const body = await page.locator("#t-body").inputValue();
    await page.locator("#t-body + .editor-host .cm-content").click();
    await page.keyboard.type("typed");
    equal(await page.locator("#t-body").inputValue(), body);
    await accessibleInBothThemes(page, "read-only template editor");
    deepEqual(problems, []);

    // The partials behind save still refuse the viewer, as their REST twins do.
    const pipelineId = report!.split("/").at(-1);
    const csrf = (await page.context().cookies()).find((c) => c.name === "svc_csrf")!.value;
    const refused = await page.evaluate(async ([token, id]) => {
      const post = (path: string) =>
        fetch(path, {
          method: "POST",
          headers: { "SVC-CSRF-Token": token, "content-type": "application/x-www-form-urlencoded" },
          body: "name=x&spec=%7B%7D&body=SELECT%201&id=demo/shop/revenue_by_country",
        }).then((r) => r.status);
      return [
        await post(`/partials/pipelines/${id}/save`),
        await post("/partials/pipelines/editor/form"),
        await post("/partials/templates/save"),
        await post("/partials/templates/preview"),
        await post(`/partials/pipelines/${id}/release`),
        await post("/partials/templates/release"),
      ];
    }, [csrf, pipelineId!]);
    deepEqual(refused, [403, 403, 403, 403, 403, 403]);
  },
);
