/**
 * The operation matrix (spec 1 §4.6) played over HTTP: every access route × viewer, author,
 * promoter, workspace admin and super admin sessions, and user keys of each scope. Expectations are
 * written out by hand from the spec, not derived from the table under test. Destructive routes aim
 * at absent targets, so "allowed" shows as the handler's own answer (a 404 behind the gate). The
 * matrix runs on both stores.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  type AccessFixture,
  ROLE_NAMES,
  seedRoles,
  sessionHeaders,
  userKey,
} from "./support/access_fixtures.ts";
import { isPublicPath } from "../src/http/public_paths.ts";
import { json, withTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { dql } from "./support/pipeline_body.ts";

type Caller =
  | "viewer"
  | "author"
  | "promoter"
  | "ws_admin"
  | "super_admin"
  | "key_read"
  | "key_execute"
  | "key_author";
const CALLERS: Caller[] = [...ROLE_NAMES, "key_read", "key_execute", "key_author"];
type Expect = number | string;

interface Row {
  method: string;
  path: (f: AccessFixture) => string;
  body?: (caller: Caller) => unknown;
  expect: Record<Caller, Expect>;
}

const R = "auth.role_required";
const S = "auth.scope.insufficient";
const SESSION = "auth.session.required";
const NF = "workspace.not_found";
const TNF = "template.not_found";
const PNF = "pipeline.not_found";
const IP = "pipeline.execution.invalid_parameter_type";
const all = (e: Expect) => Object.fromEntries(CALLERS.map((c) => [c, e])) as Record<Caller, Expect>;
const row = (
  viewer: Expect,
  author: Expect,
  promoter: Expect,
  ws_admin: Expect,
  super_admin: Expect,
  key_read: Expect,
  key_execute: Expect,
  key_author: Expect,
) => ({ viewer, author, promoter, ws_admin, super_admin, key_read, key_execute, key_author });
const absent = "00000000-0000-4000-8000-000000000000";
const DNF = "datasource.not_found";
const datasourceBody = (name: string) => ({
  name,
  dialect: "SQLITE",
  jdbc_url: "jdbc:sqlite:/nonexistent/matrix.db",
});

/** One row of the matrix: a route (a fixed path, or one built from the fixture) and its answers. */
const op = (
  method: string,
  path: string | ((f: AccessFixture) => string),
  expect: Record<Caller, Expect>,
  body?: (caller: Caller) => unknown,
): Row => ({ method, path: typeof path === "string" ? () => path : path, expect, body });

/** A one-node pipeline body per caller, named under `folder` so that no two callers collide. */
const onePipeline = (folder: string) => (c: Caller) => ({
  name: `${folder}/${c.replace("_", "-")}`,
  nodes: [dql("a", { sql: "SELECT 1", source: "tempdb" })],
});

const ROWS: Row[] = [
  op("GET", "/api/v1/auth/me", all(200)),
  op("GET", "/api/v1/auth/api-keys", all(200)),
  op(
    "POST",
    "/api/v1/auth/api-keys",
    row(R, 201, R, 201, 201, 201, 201, 201),
    () => ({ name: "matrix", scopes: ["read"] }),
  ),
  op("GET", "/api/v1/workspaces", all(200)),
  op("GET", (f) => `/api/v1/workspaces/${f.workspace.name}`, all(200)),
  op("GET", (f) => `/api/v1/workspaces/${f.workspace.name}/members`, all(200)),
  op(
    "POST",
    "/api/v1/workspaces",
    row(R, R, R, R, 201, S, S, S),
    (c) => ({ name: `made-by-${c.replace("_", "-")}` }),
  ),
  op(
    "PUT",
    (f) => `/api/v1/workspaces/${f.workspace.name}`,
    row(R, R, R, 200, 200, S, S, 200),
    () => ({ display_name: "Acme" }),
  ),
  op("POST", () => `/api/v1/workspaces/scratch/deactivate`, row(NF, NF, NF, NF, 200, NF, NF, NF)),
  op(
    "POST",
    (f) => `/api/v1/workspaces/${f.workspace.name}/members`,
    row(R, R, R, 202, 202, S, S, 202),
    (c) => ({ email: `invitee-${c.replace("_", "-")}@acme.example` }),
  ),
  op(
    "PUT",
    (f) => `/api/v1/workspaces/${f.workspace.name}/members/${absent}`,
    row(R, R, R, NF, NF, S, S, NF),
    () => ({ author: true }),
  ),
  op(
    "DELETE",
    (f) => `/api/v1/workspaces/${f.workspace.name}/members/${absent}`,
    row(R, R, R, NF, NF, S, S, NF),
  ),
  {
    method: "DELETE",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}/invitations/nobody@acme.example`,
    expect: row(
      R,
      R,
      R,
      "workspace.invitation.not_found",
      "workspace.invitation.not_found",
      S,
      S,
      "workspace.invitation.not_found",
    ),
  },
  op("GET", "/api/v1/datasources", all(200)),
  op("GET", "/api/v1/datasources/absent", all(DNF)),
  op(
    "POST",
    "/api/v1/datasources",
    row(R, R, R, 201, 201, S, S, 201),
    (c) => datasourceBody(`bound-${c.replace("_", "-")}`),
  ),
  op(
    "POST",
    "/api/v1/datasources",
    row(R, R, R, R, 201, S, S, S),
    (c) => ({ ...datasourceBody(`global-${c.replace("_", "-")}`), global: true }),
  ),
  op(
    "PUT",
    "/api/v1/datasources/absent",
    row(R, R, R, DNF, DNF, S, S, DNF),
    () => datasourceBody("absent"),
  ),
  op("DELETE", "/api/v1/datasources/absent", row(R, R, R, DNF, DNF, S, S, DNF)),
  op("POST", "/api/v1/datasources/absent/test", row(R, R, R, DNF, DNF, S, S, DNF)),
  op("GET", "/api/v1/datasources/absent/schemas", row(R, DNF, R, DNF, DNF, S, S, DNF)),
  op("GET", "/api/v1/datasources/absent/tables?schema=x", row(R, DNF, R, DNF, DNF, S, S, DNF)),
  op("GET", "/api/v1/datasources/absent/tables/t/columns", row(R, DNF, R, DNF, DNF, S, S, DNF)),
  op(
    "POST",
    (f) => `/api/v1/datasources/absent/grants/${f.workspace.name}`,
    row(R, R, R, R, DNF, S, S, S),
  ),
  op(
    "DELETE",
    (f) => `/api/v1/datasources/absent/grants/${f.workspace.name}`,
    row(R, R, R, R, DNF, S, S, S),
  ),
  op("GET", "/api/v1/auth/users", row(R, R, R, R, 200, S, S, S)),
  op("GET", () => `/api/v1/auth/users/${absent}`, row(R, R, R, R, "auth.user.not_found", S, S, S)),
  op(
    "POST",
    (f) => `/api/v1/auth/users/${f.users.viewer.id}/activate`,
    row(R, R, R, R, 200, S, S, S),
  ),
  op("GET", "/api/v1/audit", row(R, R, R, 200, 200, 200, 200, 200)),
  {
    method: "POST",
    path: () => "/partials/account/password",
    body: () => ({ current_password: "not the password", new_password: "whatever it may be" }),
    expect: row(
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
      SESSION,
      SESSION,
      SESSION,
    ),
  },
  op(
    "POST",
    "/workspace/switch",
    row(302, 302, 302, 302, 302, SESSION, SESSION, SESSION),
    () => ({ workspace: "acme" }),
  ),
  // Templates (spec 2 §4.2): reads view/read; writes author/author; release author/promote;
  // switch author/switch; draft discard, discard, restore, switch, purges and the entity delete
  // are session-only (spec 2 §4.1 last line). Targets are absent, so "allowed" is the 404.
  op("GET", () => `/api/v1/templates?name=absent/t`, all(TNF)),
  op("GET", () => `/api/v1/templates?prefix=absent`, all(200)),
  op("GET", () => `/api/v1/templates?q=absent`, all(200)),
  op("GET", () => `/api/v1/templates/versions?name=absent/t&version=1`, all(TNF)),
  op(
    "POST",
    "/api/v1/templates",
    row(R, 201, R, 201, 201, S, S, 201),
    (c) => ({ id: `matrix/${c}`, dialect: "SQLITE", display_name: "m", body: "SELECT 1" }),
  ),
  op(
    "PUT",
    "/api/v1/templates",
    row(R, IP, R, IP, IP, S, S, IP),
    () => ({ id: "absent/t", display_name: "m", body: "SELECT 1" }),
  ),
  op(
    "POST",
    "/api/v1/templates/render",
    row(R, TNF, R, TNF, TNF, S, S, TNF),
    () => ({ name: "absent/t" }),
  ),
  op(
    "POST",
    "/api/v1/templates/import",
    row(R, 201, R, 201, 201, S, S, 201),
    (c) => ({ templates: [{ id: `library/${c}`, dialect: "DUCKDB", body: "SELECT 1" }] }),
  ),
  op(
    "POST",
    "/api/v1/templates/release",
    row(R, R, TNF, R, TNF, S, S, "auth.key_issuer_role_lost"),
    () => ({ name: "absent/t" }),
  ),
  op(
    "POST",
    "/api/v1/templates/current",
    row(R, TNF, TNF, TNF, TNF, SESSION, SESSION, SESSION),
    () => ({ name: "absent/t", version: 1 }),
  ),
  ...["draft/discard", "version/discard", "version/restore"].map((verb) => ({
    method: "POST",
    path: () => `/api/v1/templates/${verb}`,
    body: () => ({ name: "absent/t", version: 1 }),
    expect: row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  })),
  op(
    "DELETE",
    "/api/v1/templates/version?name=absent/t&version=1",
    row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  ),
  op(
    "DELETE",
    "/api/v1/templates?name=absent/t",
    row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  ),
  // Pipelines (spec 2 §4.1, all but execute): same rows as templates; the target id is absent.
  op("GET", () => `/api/v1/pipelines/${absent}`, all(PNF)),
  op("GET", () => `/api/v1/pipelines/${absent}/versions`, all(PNF)),
  op("GET", () => `/api/v1/pipelines/${absent}/versions/1`, all(PNF)),
  op("GET", () => `/api/v1/pipelines/${absent}/versions/1/checks`, all(PNF)),
  op("GET", () => `/api/v1/pipelines/${absent}/export`, all(PNF)),
  op("GET", "/api/v1/pipelines?prefix=absent", all(200)),
  op("GET", "/api/v1/pipelines?q=absent", all(200)),
  op("POST", "/api/v1/pipelines", row(R, 201, R, 201, 201, S, S, 201), onePipeline("matrix")),
  op(
    "POST",
    "/api/v1/pipelines/import",
    row(R, 201, R, 201, 201, S, S, 201),
    onePipeline("imported"),
  ),
  op(
    "PUT",
    () => `/api/v1/pipelines/${absent}`,
    row(R, IP, R, IP, IP, S, S, IP),
    () => ({ name: "a/b", nodes: [] }),
  ),
  op(
    "POST",
    () => `/api/v1/pipelines/${absent}/versions/1/checks/run`,
    row(R, PNF, R, PNF, PNF, S, S, PNF),
  ),
  op(
    "POST",
    () => `/api/v1/pipelines/${absent}/release`,
    row(R, R, PNF, R, PNF, S, S, "auth.key_issuer_role_lost"),
  ),
  op(
    "POST",
    () => `/api/v1/pipelines/${absent}/current`,
    row(R, PNF, PNF, PNF, PNF, SESSION, SESSION, SESSION),
    () => ({ version: 1 }),
  ),
  ...["draft/discard", "versions/1/discard", "versions/1/restore"].map((verb) => ({
    method: "POST",
    path: () => `/api/v1/pipelines/${absent}/${verb}`,
    expect: row(R, PNF, R, PNF, PNF, SESSION, SESSION, SESSION),
  })),
  ...[`versions/1`, ""].map((tail) => ({
    method: "DELETE",
    path: () => `/api/v1/pipelines/${absent}${tail ? "/" + tail : ""}`,
    expect: row(R, PNF, R, PNF, PNF, SESSION, SESSION, SESSION),
  })),
];

const UNBUDGETED = {
  SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000",
  SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
};

forEachStoreKind(
  "operation matrix: every route × every role and key scope answers exactly as spec 1 §4.6",
  async (store) => {
    // Hundreds of requests per caller in a few seconds: the per-user budget must not answer for them.
    await withTestServer({ store, env: UNBUDGETED }, async (s) => {
      const f = await seedRoles(s.runtime);
      await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "scratch" });
      const credentials = {} as Record<Caller, Record<string, string>>;
      for (const role of ROLE_NAMES) {
        credentials[role] = await sessionHeaders(s.runtime, f.users[role], f.workspace.name);
      }
      for (const scope of ["read", "execute", "author"] as const) {
        credentials[`key_${scope}`] = {
          "SVC-API-Key": await userKey(s.runtime, f.users.ws_admin, f.workspace.id, [scope]),
        };
      }
      const failures: string[] = [];
      for (const r of ROWS) {
        for (const caller of CALLERS) {
          const body = r.body?.(caller);
          const res = await s.fetch(r.path(f), {
            method: r.method,
            redirect: "manual",
            headers: {
              accept: "application/json",
              ...(body !== undefined ? { "content-type": "application/json" } : {}),
              ...credentials[caller],
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await res.text();
          const expected = r.expect[caller];
          const got = typeof expected === "number"
            ? res.status
            : JSON.parse(text || "{}").error?.code;
          if (got !== expected) {
            failures.push(
              `${r.method} ${
                r.path(f)
              } as ${caller}: expected ${expected}, got ${got} (${res.status} ${
                text.slice(0, 160)
              })`,
            );
          }
        }
      }
      equal(failures.length, 0, "\n" + failures.join("\n"));
    });
  },
);

Deno.test("default-deny: every registered route declares an operation or is public", async () => {
  await withTestServer({}, (s) => {
    const routes = s.runtime.router.routes();
    ok(routes.length > 20);
    const undeclared = routes.filter((r) => !r.access);
    equal(undeclared.length, 0, JSON.stringify(undeclared));
    // The promotion receiver routes name no matrix row: step 3, the promotion key gate, opens
    // them to a server key only, and they refuse any request the gate did not pass.
    deepEqual(
      routes.filter((r) => r.promotionReceiver).map((r) => `${r.access} ${r.method} ${r.path}`),
      ["public GET /api/v1/promotion/inventory", "public POST /api/v1/promotion/push"],
    );
    const publicOnes = routes.filter((r) => r.access === "public" && !r.promotionReceiver).map((
      r,
    ) => `${r.method} ${r.path}`);
    // /api/x is declared public to the router because endpoint-kind keys carry no scopes: its
    // handlers require a key themselves, judge user keys on `endpoints.serve`, and the binding
    // walk gates endpoint keys (src/http/routes/endpoints.ts).
    // Every other route declared public sits on a path spec 1 §5.9 names public (a path
    // parameter stands for any segment there).
    for (const p of publicOnes.filter((p) => !/^[A-Z]+ \/api\/x\/(\*|openapi\.json)$/.test(p))) {
      const [method, path] = p.split(" ");
      ok(isPublicPath(method, path.replace(/:[a-z_]+/g, "x")), p);
    }
  });
});

Deno.test("a super admin acting without membership is audited on every governed request, reads included", async () => {
  await withTestServer({}, async (s) => {
    const f = await seedRoles(s.runtime);
    const headers = await sessionHeaders(s.runtime, f.users.super_admin);
    const res = await s.fetch("/api/v1/workspaces/acme/members", { headers });
    equal(res.status, 200);
    await res.body?.cancel();
    const rows = await s.runtime.db.query<{ details: string; workspace_id: string }>(
      "SELECT details, workspace_id FROM audit_log WHERE event = 'auth.super_admin_acting'",
    );
    equal(rows.length, 1);
    const details = JSON.parse(rows[0].details);
    equal(details.acting_via, "super_admin");
    equal(details.workspace, "acme");
    equal(details.operation, "workspaces.read");
    equal(details.method, "GET");
    equal(String(rows[0].workspace_id), f.workspace.id);
    const mine = await s.fetch("/api/v1/workspaces", { headers });
    equal((await json(mine)).data.items.length >= 1, true);
  });
});
