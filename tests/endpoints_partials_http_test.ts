/**
 * The endpoint pages' partials over HTTP on both stores (issue 23 item 1): each refuses what its
 * REST twin under /api/v1/endpoints refuses, with the same status and code, a refusal of what was
 * typed drawn on the field it concerns; a viewer is refused every one of them and their pages;
 * and a browser session calling /api/x keeps spec 3's 401 with texts that point to a key.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, postForm, type TestServer, withTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { teamPipeline, writerPipeline } from "./support/pipeline_body.ts";
import { forEachServer } from "./support/servers.ts";

type Headers = Record<string, string>;

/** The roles seeded, and `/sales/{team}` published by the author over REST. */
async function published(s: TestServer) {
  const f = await seedRoles(s.runtime);
  const at = { actor: f.users.author.principal, workspaceId: f.workspace.id };
  const id = await teamPipeline(s, at, "sales/by_team");
  const author = await sessionHeaders(s.runtime, f.users.author);
  const res = await call(s, "POST", "/api/v1/endpoints", author, {
    path_pattern: "/sales/{team}",
    pipeline_id: id,
  });
  equal(res.status, 201);
  return { f, id, author };
}

forEachServer(
  "issue 23 item 1: the publish partial refuses what POST /api/v1/endpoints refuses, on the field",
  async (s, f) => {
    const at = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const released = await teamPipeline(s, at, "sales/by_team");
    const draft = await teamPipeline(s, at, "sales/draft", true);
    const writes = await writerPipeline(s, {
      actor: f.users.author.principal,
      workspaceId: f.workspace.id,
    }, "sales/copy");
    const author = await sessionHeaders(s.runtime, f.users.author);
    const publish = (fields: Record<string, string>) =>
      postForm(s, "/partials/endpoints/publish", author, { enabled: "true", ...fields });
    const rest = (body: Record<string, unknown>) =>
      call(s, "POST", "/api/v1/endpoints", author, body);

    // The publish page draws the path builder: the grammar, a segment per parameter, a start.
    const form = await s.fetch(`/pipelines/${released}/publish`, {
      headers: { ...author, accept: "text/html" },
    });
    equal(form.status, 200);
    const html = await form.text();
    match(html, /data-path-append="\/\{team\}"/);
    match(html, /Path rules/);
    match(html, /name="path_pattern"[^>]*value="\/sales\/by_team"|value="\/sales\/by_team"/);

    const ok201 = await publish({ pipeline_id: released, path_pattern: "/sales/{team}" });
    equal(ok201.status, 303, ok201.text);
    equal(
      ok201.location,
      `/endpoints/view?path=${encodeURIComponent("/sales/{team}")}&published=%2Fsales%2F%7Bteam%7D`,
    );
    const stored = await call(s, "GET", "/api/v1/endpoints?path=/sales/{team}", author);
    deepEqual([stored.status, stored.body.data.enabled], [200, true]);

    const cases: [string, Record<string, string>, number, string, string][] = [
      ["grammar", { pipeline_id: released, path_pattern: "/Sales" }, 400, "path_invalid", "path"],
      ["variable", { pipeline_id: released, path_pattern: "/s/{region}" }, 400, "", "path"],
      ["conflict", { pipeline_id: released, path_pattern: "/sales/red" }, 409, "", "path"],
      ["draft", { pipeline_id: draft, path_pattern: "/d" }, 409, "", "pipeline"],
      ["writer", { pipeline_id: writes, path_pattern: "/w" }, 409, "", "pipeline"],
      [
        "timeout",
        { pipeline_id: released, path_pattern: "/t", timeout_seconds: "1.5" },
        400,
        "",
        "timeout",
      ],
    ];
    for (const [label, fields, status, , field] of cases) {
      const twin = await rest({
        pipeline_id: fields.pipeline_id,
        path_pattern: fields.path_pattern,
        ...(fields.timeout_seconds ? { timeout_seconds: Number(fields.timeout_seconds) } : {}),
      });
      equal(twin.status, status, `${label} (REST): ${JSON.stringify(twin.body)}`);
      const code = twin.body.error.code;
      const page = await publish(fields);
      equal(page.status, status, `${label}: ${page.text.slice(0, 300)}`);
      match(page.text, new RegExp(`data-error-code="${code.replaceAll(".", "\\.")}"`), label);
      match(page.text, new RegExp(`id="publish-${field}-error"`), label);
      // What was typed stays in the form.
      match(page.text, new RegExp(`value="${fields.path_pattern.replace(/[{}]/g, "\\$&")}"`));
    }
    const refused = await call(s, "GET", "/api/v1/endpoints", author);
    deepEqual(refused.body.data.items.map((e: { path_pattern: string }) => e.path_pattern), [
      "/sales/{team}",
    ]);
    // The field errors say what the details say, not only the code's generic text.
    const variable = await publish({ pipeline_id: released, path_pattern: "/s/{region}" });
    match(variable.text, /\{region\} is not a parameter of release v1; its parameters are team/);
    const conflict = await publish({ pipeline_id: released, path_pattern: "/sales/red" });
    match(conflict.text, /match both this path and \/sales\/\{team\}/);
    const node = await publish({ pipeline_id: writes, path_pattern: "/w" });
    match(node.text, /Node copy: its output goes to a datasource/);
    // Another workspace's pipeline is not found, as on the API.
    const unknown = await publish({ pipeline_id: crypto.randomUUID(), path_pattern: "/u" });
    equal(unknown.status, 404);
    match(unknown.text, /pipeline\.not_found/);

    // The pipeline page offers publishing to an author, and says where it is published.
    const pipelinePage = await s.fetch(`/pipelines/${released}`, {
      headers: { ...author, accept: "text/html" },
    }).then((r) => r.text());
    match(pipelinePage, new RegExp(`href="/pipelines/${released}/publish"`));
    match(
      pipelinePage,
      /Published at[\s\S]*href="\/endpoints\/view\?path=%2Fsales%2F%7Bteam%7D"/,
    );
    const draftPage = await s.fetch(`/pipelines/${draft}`, {
      headers: { ...author, accept: "text/html" },
    }).then((r) => r.text());
    ok(!draftPage.includes("Publish as endpoint"), "a pipeline with no release");
  },
);

forEachStoreKind(
  "issue 23 item 1: state, unpublish, bind and unbind partials mirror their REST twins",
  async (store) => {
    await withTestServer({ store }, async (s) => {
      const { f, author } = await published(s);
      const issue = (user: typeof f.users.author, body: Record<string, unknown>) =>
        s.runtime.keys.issue(
          { ...user.principal, activeWorkspaceId: f.workspace.id },
          body,
          { flags: { author: true, promoter: false, admin: true }, isSuperAdmin: false },
        );
      await issue(f.users.author, { name: "feed", kind: "endpoint" });
      await issue(f.users.author, { name: "mine", scopes: ["execute"] });
      await issue(f.users.ws_admin, { name: "theirs", kind: "endpoint" });

      // Enable and disable: the redirect says which, and the API agrees.
      const off = await postForm(s, "/partials/endpoints/state", author, {
        path: "/sales/{team}",
        enabled: "false",
        back: "/endpoints/view?path=%2Fsales%2F%7Bteam%7D",
      });
      equal(off.status, 303);
      equal(
        off.location,
        "/endpoints/view?path=%2Fsales%2F%7Bteam%7D&disabled=%2Fsales%2F%7Bteam%7D",
      );
      const read = () => call(s, "GET", "/api/v1/endpoints?path=/sales/{team}", author);
      equal((await read()).body.data.enabled, false);
      // A `back` off this site is not followed.
      const on = await postForm(s, "/partials/endpoints/state", author, {
        path: "/sales/{team}",
        enabled: "true",
        back: "//evil.example/x",
      });
      equal(on.location, "/endpoints?enabled=%2Fsales%2F%7Bteam%7D");
      equal((await read()).body.data.enabled, true);

      // Refusals: the same status and code as the API's.
      const same = async (
        label: string,
        partial: Promise<{ status: number; text: string }>,
        twin: Promise<{ status: number; body: { error?: { code: string } } }>,
        field?: string,
      ) => {
        const [p, r] = await Promise.all([partial, twin]);
        ok(r.body.error, `${label}: the API accepted it`);
        equal(p.status, r.status, `${label}: ${p.text.slice(0, 300)}`);
        ok(p.text.includes(r.body.error.code), `${label}: ${r.body.error.code} not in the answer`);
        if (field) match(p.text, new RegExp(`id="${field}-error"`), label);
      };
      await same(
        "state of an unknown path",
        postForm(s, "/partials/endpoints/state", author, { path: "/nope", enabled: "false" }),
        call(s, "PUT", "/api/v1/endpoints?path=/nope", author, { enabled: false }),
      );
      await same(
        "state neither true nor false",
        postForm(s, "/partials/endpoints/state", author, {
          path: "/sales/{team}",
          enabled: "maybe",
        }),
        call(s, "PUT", "/api/v1/endpoints?path=/sales/{team}", author, { enabled: "maybe" }),
      );
      await same(
        "unpublish an unknown path",
        postForm(s, "/partials/endpoints/unpublish", author, { path: "/nope" }),
        call(s, "DELETE", "/api/v1/endpoints?path=/nope", author),
      );
      const bind = (fields: Record<string, string>) =>
        postForm(s, "/partials/endpoints/bindings", author, fields);
      const restBind = (body: Record<string, string>) =>
        call(s, "POST", "/api/v1/endpoints/bindings", author, body);
      for (
        const [label, fields, field] of [
          ["no such key", { path: "/sales", key_name: "ghost" }, "bind-key"],
          ["another user's key", { path: "/sales", key_name: "theirs" }, "bind-key"],
          ["a user key", { path: "/sales", key_name: "mine" }, "bind-key"],
          ["a bad node", { path: "/Sales", key_name: "feed" }, "bind-path"],
        ] as const
      ) {
        await same(label, bind(fields), restBind(fields), field);
      }
      const unbind = (fields: Record<string, string>) =>
        postForm(s, "/partials/endpoints/bindings/remove", author, fields);
      await same(
        "unbind what is not bound",
        unbind({ path: "/sales", key_name: "feed" }),
        call(s, "DELETE", "/api/v1/endpoints/bindings?path=/sales&key_name=feed", author),
      );

      // Bind and unbind: the redirect names the act, the endpoint record shows the binding.
      const bound = await bind({ path: "/sales", key_name: "feed" });
      deepEqual([bound.status, bound.location], [
        303,
        "/endpoints?bound=feed&node=%2Fsales#bindings",
      ]);
      deepEqual((await read()).body.data.bindings.map((b: { key_name: string }) => b.key_name), [
        "feed",
      ]);
      const listed = await s.fetch("/endpoints", { headers: { ...author, accept: "text/html" } })
        .then((r) => r.text());
      match(listed, /<code>\/sales<\/code> <span class="muted">→<\/span> feed/);
      const unbound = await unbind({ path: "/sales", key_name: "feed" });
      equal(unbound.status, 303);
      deepEqual((await read()).body.data.bindings, []);

      // Unpublish asks on the page first (`?unpublish=`), then the partial removes it.
      const ask = await s.fetch(`/endpoints?unpublish=${encodeURIComponent("/sales/{team}")}`, {
        headers: { ...author, accept: "text/html" },
      }).then((r) => r.text());
      match(ask, /<dialog[^>]*open[\s\S]*Unpublish \/sales\/\{team\}\?[\s\S]*answers 404 at once/);
      const gone = await postForm(s, "/partials/endpoints/unpublish", author, {
        path: "/sales/{team}",
      });
      deepEqual([gone.status, gone.location], [
        303,
        "/endpoints?unpublished=%2Fsales%2F%7Bteam%7D",
      ]);
      equal((await read()).status, 404);
    });
  },
);

forEachStoreKind(
  "issue 23 item 1: a viewer gets none of the endpoint pages or partials; a session on /api/x is 401",
  async (store) => {
    await withTestServer({ store }, async (s) => {
      const { f, id, author } = await published(s);
      const viewer = await sessionHeaders(s.runtime, f.users.viewer);
      for (
        const [path, fields] of [
          ["/partials/endpoints/publish", { pipeline_id: id, path_pattern: "/v" }],
          ["/partials/endpoints/state", { path: "/sales/{team}", enabled: "false" }],
          ["/partials/endpoints/unpublish", { path: "/sales/{team}" }],
          ["/partials/endpoints/bindings", { path: "/sales", key_name: "x" }],
          ["/partials/endpoints/bindings/remove", { path: "/sales", key_name: "x" }],
        ] as const
      ) {
        const res = await postForm(s, path, viewer, fields);
        equal(res.status, 403, path);
        match(res.text, /auth\.role_required/, path);
      }
      for (
        const path of [
          `/pipelines/${id}/publish`,
          `/endpoints/view?path=${encodeURIComponent("/sales/{team}")}`,
        ]
      ) {
        const res = await s.fetch(path, { headers: { ...viewer, accept: "text/html" } });
        equal(res.status, 403, path);
        await res.body?.cancel();
      }
      // Nothing changed, and a viewer's pipeline page offers no publishing.
      const record = await call(s, "GET", "/api/v1/endpoints?path=/sales/{team}", author);
      equal(record.body.data.enabled, true);
      const page = await s.fetch(`/pipelines/${id}`, {
        headers: { ...viewer, accept: "text/html" },
      })
        .then((r) => r.text());
      ok(!page.includes("Publish as endpoint"));
      ok(!page.includes("Published at"));

      // A session on /api/x: 401 auth.api_key.missing still, saying to use a key and where.
      for (const accept of ["text/html,application/xhtml+xml,*/*;q=0.8", "application/json"]) {
        const res = await s.fetch("/api/x/sales/red", { headers: { ...author, accept } });
        equal(res.status, 401, accept);
        match(res.headers.get("content-type") ?? "", /application\/json/);
        const body = await res.json();
        equal(body.error.code, "auth.api_key.missing");
        match(body.error.message, /browser session cannot call a published endpoint/);
        match(body.error.message, /SVC-API-Key/);
        equal(body.error.details.keys_url, `${s.url}/settings/api-keys`);
        match(body.error.user_message, new RegExp(`${s.url}/settings/api-keys`));
      }
      // No credential at all keeps the general text; a key is served.
      const bare = await s.fetch("/api/x/sales/red").then((r) => r.json());
      deepEqual([bare.error.code, bare.error.details], ["auth.api_key.missing", {}]);
      const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]);
      const served = await s.fetch("/api/x/sales/red", { headers: { "SVC-API-Key": key } });
      equal(served.status, 200, await served.text());

      // The try-it panel's table of that run: its owner reads it, a viewer is not shown it.
      const run = served.headers.get("svc-execution-id");
      const table = (h: Headers) =>
        s.fetch(`/partials/endpoints/result/${run}`, { headers: { ...h, accept: "text/html" } });
      const mine = await table(author);
      equal(mine.status, 200);
      match(await mine.text(), /class="result-table"[\s\S]*<td>red<\/td>[\s\S]*Open the run/);
      const theirs = await table(viewer);
      equal(theirs.status, 404);
      match(await theirs.text(), /result\.execution_not_found/);

      // A key made from the panel: its Done returns to the endpoint, never off this site.
      const issue = (back: string, fields: Record<string, string> = {}) =>
        postForm(s, "/partials/account/api-keys", author, {
          name: "try",
          kind: "user",
          scope: "execute",
          workspace: "acme",
          expires_in: "7d",
          back,
          ...fields,
        });
      const here = "/endpoints/view?path=%2Fsales%2F%7Bteam%7D";
      const made = await issue(here);
      equal(made.status, 201);
      match(
        made.text,
        new RegExp(`data-key-name="try"[\\s\\S]*href="${here.replace("?", "\\?")}">Done`),
      );
      match((await issue("//evil.example/x")).text, /href="\/settings\/api-keys">Done/);
      // A refusal keeps the panel's form: `back` kept, no key list to refresh.
      const refusedKey = await issue(here, { expires_in: "custom" });
      equal(refusedKey.status, 400);
      match(refusedKey.text, new RegExp(`name="back" value="${here.replace("?", "\\?")}"`));
      ok(!/<form[^>]*class="key-create[^>]*hx-select-oob/.test(refusedKey.text));
    });
  },
);
