/**
 * The audit log page in a real browser (issue 23 item 5): acts done in the test (a member added,
 * a key issued, a pipeline released, a workspace created) appear with their actor by name and
 * their subject linked; the filters narrow the rows; a workspace admin reads only their workspace
 * and gets no scope switch; a super admin switches between the instance and the workspace; a
 * viewer meets the 403 page and no nav entry.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser, sessionHeaders } from "../support/access_fixtures.ts";
import { accessibleInBothThemes, demoBrowserTest, userPage } from "../support/browser.ts";
import { call } from "../support/harness.ts";
import { teamPipeline } from "../support/pipeline_body.ts";

const eventsShown = (page: Page) => page.locator("tbody tr td:nth-child(2)").allTextContents();
const rowOf = (page: Page, event: string) =>
  page.locator("tbody tr", { has: page.locator(`td:text-is("${event}")`) });

async function filter(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(fields)) {
    const field = page.locator(`form.filters [name=${name}]`);
    if (await field.evaluate((e) => e.tagName === "SELECT")) await field.selectOption(value);
    else await field.fill(value);
  }
  await Promise.all([page.waitForURL(/\/audit\?/), page.click("button:has-text('Filter')")]);
}

demoBrowserTest(
  "issue 23 item 5: the audit page shows the acts, narrows them, and keeps to the reader's scope",
  async (s, browser) => {
    const root = await createUser(s.runtime, "boss@example.com", { isAdmin: true });
    const keeper = await createUser(s.runtime, "keeper@example.com");
    const viewer = await createUser(s.runtime, "looker@example.com");
    const demo = (await s.runtime.workspaces.get("demo"))!;
    const asRoot = await sessionHeaders(s.runtime, root, "demo");
    const added = await call(s, "POST", "/api/v1/workspaces/demo/members", asRoot, {
      email: keeper.email,
      admin: true,
    });
    equal(added.status, 200, JSON.stringify(added.body));
    const asKeeper = await sessionHeaders(s.runtime, keeper, "demo");
    const key = await call(s, "POST", "/api/v1/auth/api-keys", asKeeper, {
      name: "nightly export",
      scopes: ["read"],
    });
    equal(key.status, 201, JSON.stringify(key.body));
    const pipelineId = await teamPipeline(
      s,
      { actor: root.principal, workspaceId: demo.id },
      "audit/by_team",
    );
    const other = await call(s, "POST", "/api/v1/workspaces", asRoot, {
      name: "elsewhere",
      display_name: "Elsewhere",
    });
    equal(other.status, 201, JSON.stringify(other.body));

    // The workspace admin: the nav leads there; their workspace's rows, no scope switch.
    const { page, problems } = await userPage(browser, s.url, keeper);
    await Promise.all([
      page.waitForURL(/\/audit$/),
      page.click("nav.sidenav a:has-text('Audit log')"),
    ]);
    equal(await page.locator("select[name=scope]").count(), 0);
    equal(await page.locator("th:has-text('Workspace')").count(), 0);
    const events = await eventsShown(page);
    for (
      const e of ["workspace.member_added", "auth.api_key.created", "pipeline.version.released"]
    ) {
      ok(events.includes(e), `${e} in ${events}`);
    }
    ok(!(await page.locator("main").innerText()).includes("elsewhere"), "another workspace's row");

    // The demo's own releases are there too (by the system): this one is the test's.
    const link = page.locator(`a[href="/pipelines/${pipelineId}"]`);
    const release = rowOf(page, "pipeline.version.released").filter({ has: link });
    equal(await release.locator("a").textContent(), "audit/by_team");
    match(await release.locator("td:nth-child(3)").innerText(), /boss\s+boss@example\.com/);
    const issued = rowOf(page, "auth.api_key.created");
    match(await issued.locator("td:nth-child(3)").innerText(), /keeper\s+keeper@example\.com/);
    match(await issued.locator("td:nth-child(4)").innerText(), /key\s+nightly export · svck_/);
    // A row opens to everything it recorded.
    const details = issued.locator("details pre");
    ok(await details.isHidden());
    await issued.locator("summary").click();
    match(await details.innerText(), /"name": "nightly export"/);
    await accessibleInBothThemes(page, "audit, workspace admin");

    await filter(page, { event: "auth.api_key.created" });
    deepEqual(await eventsShown(page), ["auth.api_key.created"]);
    await page.goto(`${s.url}/audit`);
    await filter(page, { actor: root.id });
    const byRoot = await eventsShown(page);
    ok(byRoot.includes("pipeline.version.released") && !byRoot.includes("auth.api_key.created"));
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await filter(page, { from: today, to: today });
    deepEqual(await eventsShown(page), byRoot);
    await filter(page, { from: tomorrow, to: "" });
    equal(await page.locator("tbody tr").count(), 0);
    ok(await page.locator("text=Nothing recorded matches").isVisible());
    await accessibleInBothThemes(page, "audit, nothing matches");
    deepEqual(problems, []);

    // The super admin: the whole instance by default, one workspace on request.
    const boss = await userPage(browser, s.url, root);
    await boss.page.goto(`${s.url}/audit`);
    // Two workspaces and no active one: only the instance can be read.
    deepEqual(await boss.page.locator("select[name=scope] option").allTextContents(), [
      "Whole instance",
    ]);
    await Promise.all([
      boss.page.waitForURL(/\/dashboard$/),
      boss.page.selectOption("#workspace-switch", "demo"),
    ]);
    await boss.page.goto(`${s.url}/audit`);
    deepEqual(await boss.page.locator("select[name=scope] option").allTextContents(), [
      "Whole instance",
      "This workspace only",
    ]);
    const created = rowOf(boss.page, "auth.workspace.created").filter({ hasText: "elsewhere" });
    equal(await created.count(), 1);
    await accessibleInBothThemes(boss.page, "audit, super admin");
    await filter(boss.page, { scope: "workspace" });
    equal(await boss.page.locator("th:has-text('Workspace')").count(), 0);
    ok(!(await boss.page.locator("main").innerText()).includes("elsewhere"));
    deepEqual(boss.problems, []);

    // A viewer: no nav entry, and the page refuses them as the API does.
    const looker = await userPage(browser, s.url, viewer);
    equal(await looker.page.locator("nav.sidenav a[href='/audit']").count(), 0);
    const refused = await looker.page.goto(`${s.url}/audit`);
    equal(refused?.status(), 403);
    match(await looker.page.content(), /auth\.role_required/);
  },
);
