/**
 * The Endpoints page over HTTP on both stores: an author of the workspace sees its published
 * endpoints (pattern, pipeline, release, a link to each one's page with the example call) and none
 * of another workspace's; an empty workspace says how to publish; a viewer, whom
 * `GET /api/v1/endpoints` refuses, gets the refusal as a page.
 */
import { equal, match, ok } from "node:assert/strict";
import { type AccessFixture, seedRoles, sessionHeaders } from "../support/access_fixtures.ts";
import { call, type TestServer, withTestServer } from "../support/harness.ts";
import { forEachStoreKind } from "../support/stores.ts";
import { teamPipeline } from "../support/pipeline_body.ts";

/** Releases a one-node read-only pipeline in the fixture's workspace and publishes it. */
async function publish(s: TestServer, f: AccessFixture, name: string, pattern: string) {
  const id = await teamPipeline(s, {
    actor: f.users.author.principal,
    workspaceId: f.workspace.id,
  }, name);
  const res = await call(s, "POST", "/api/v1/endpoints", await author(s, f), {
    path_pattern: pattern,
    pipeline_id: id,
    timeout_seconds: 12,
  });
  equal(res.status, 201, JSON.stringify(res.body));
  return id;
}

const author = (s: TestServer, f: AccessFixture) => sessionHeaders(s.runtime, f.users.author);

async function page(s: TestServer, headers: Record<string, string>) {
  const res = await s.fetch("/endpoints", { headers: { ...headers, accept: "text/html" } });
  return { status: res.status, html: await res.text() };
}

forEachStoreKind("the Endpoints page lists this workspace's endpoints only", async (store) => {
  await withTestServer({ store }, async (s) => {
    const acme = await seedRoles(s.runtime, "acme");
    const beta = await seedRoles(s.runtime, "beta");
    const headers = await author(s, acme);

    const empty = await page(s, headers);
    equal(empty.status, 200);
    match(empty.html, /No endpoints published yet/);
    // Publishing is the pipeline page's now; no curl to publish with.
    match(empty.html, /Publish as endpoint/);
    ok(!empty.html.includes("/api/v1/endpoints"), "the publish curl");
    match(empty.html, /href="\/endpoints"[^>]*aria-current="page"/);

    const id = await publish(s, acme, "sales/by_team", "/sales/{team}");
    await publish(s, beta, "beta/secret", "/beta/{team}");

    const listed = await page(s, headers);
    equal(listed.status, 200);
    match(listed.html, /\/sales\/\{team\}/);
    match(listed.html, new RegExp(`href="/pipelines/${id}">sales/by_team</a>`));
    match(listed.html, /release v1/);
    match(listed.html, /12 s/);
    match(listed.html, /href="\/endpoints\/view\?path=%2Fsales%2F%7Bteam%7D"/);
    // The call a program makes is on the endpoint's own page, with its try-it panel.
    const view = await s.fetch(`/endpoints/view?path=${encodeURIComponent("/sales/{team}")}`, {
      headers: { ...headers, accept: "text/html" },
    }).then((r) => r.text());
    match(
      view,
      /id="try-curl">curl -H &quot;SVC-API-Key: \$KEY&quot; &quot;http:\/\/[^&]+\/api\/x\/sales\/&lt;team>&quot;/,
    );
    match(view, /data-param="team" data-in="path"/);
    match(listed.html, /<code>GET \/api\/x\/openapi.json<\/code>/);
    match(listed.html, /href="\/docs\/endpoints"/);
    ok(!listed.html.includes("/beta/{team}"), "another workspace's endpoint");
    ok(!listed.html.includes("beta/secret"), "another workspace's pipeline");
    ok(!listed.html.includes("No endpoints published yet"));

    // The API's rule, not the page's: a viewer is refused both, the page as a page.
    const viewer = await sessionHeaders(s.runtime, acme.users.viewer);
    equal((await call(s, "GET", "/api/v1/endpoints", viewer)).status, 403);
    const refused = await page(s, viewer);
    equal(refused.status, 403);
    match(refused.html, /error-page[\s\S]*auth\.role_required/);
    ok(!refused.html.includes("/sales/{team}"));
    // Nor does the navigation lead a viewer there; an author's does.
    const navLink = /<a href="\/endpoints"/;
    const dashboard = (h: Record<string, string>) =>
      s.fetch("/dashboard", { headers: { ...h, accept: "text/html" } }).then((r) => r.text());
    ok(!navLink.test(await dashboard(viewer)), "a viewer's nav links Endpoints");
    match(await dashboard(headers), navLink);
  });
});
