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
} from "./access_fixtures.ts";
import { isPublicPath } from "../src/http/public_paths.ts";
import { json, startTestServer } from "./harness.ts";
import { forEachStoreKind } from "./stores.ts";
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

const ROWS: Row[] = [
  { method: "GET", path: () => "/api/v1/auth/me", expect: all(200) },
  { method: "GET", path: () => "/api/v1/auth/api-keys", expect: all(200) },
  {
    method: "POST",
    path: () => "/api/v1/auth/api-keys",
    body: () => ({ name: "matrix", scopes: ["read"] }),
    expect: row(R, 201, R, 201, 201, 201, 201, 201),
  },
  { method: "GET", path: () => "/api/v1/workspaces", expect: all(200) },
  { method: "GET", path: (f) => `/api/v1/workspaces/${f.workspace.name}`, expect: all(200) },
  {
    method: "GET",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}/members`,
    expect: all(200),
  },
  {
    method: "POST",
    path: () => "/api/v1/workspaces",
    body: (c) => ({ name: `made-by-${c.replace("_", "-")}` }),
    expect: row(R, R, R, R, 201, S, S, S),
  },
  {
    method: "PUT",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}`,
    body: () => ({ display_name: "Acme" }),
    expect: row(R, R, R, 200, 200, S, S, 200),
  },
  {
    method: "POST",
    path: () => `/api/v1/workspaces/scratch/deactivate`,
    expect: row(NF, NF, NF, NF, 200, NF, NF, NF),
  },
  {
    method: "POST",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}/members`,
    body: (c) => ({ email: `invitee-${c.replace("_", "-")}@acme.example` }),
    expect: row(R, R, R, 202, 202, S, S, 202),
  },
  {
    method: "PUT",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}/members/${absent}`,
    body: () => ({ author: true }),
    expect: row(R, R, R, NF, NF, S, S, NF),
  },
  {
    method: "DELETE",
    path: (f) => `/api/v1/workspaces/${f.workspace.name}/members/${absent}`,
    expect: row(R, R, R, NF, NF, S, S, NF),
  },
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
  { method: "GET", path: () => "/api/v1/datasources", expect: all(200) },
  { method: "GET", path: () => "/api/v1/datasources/absent", expect: all(DNF) },
  {
    method: "POST",
    path: () => "/api/v1/datasources",
    body: (c) => datasourceBody(`bound-${c.replace("_", "-")}`),
    expect: row(R, R, R, 201, 201, S, S, 201),
  },
  {
    method: "POST",
    path: () => "/api/v1/datasources",
    body: (c) => ({ ...datasourceBody(`global-${c.replace("_", "-")}`), global: true }),
    expect: row(R, R, R, R, 201, S, S, S),
  },
  {
    method: "PUT",
    path: () => "/api/v1/datasources/absent",
    body: () => datasourceBody("absent"),
    expect: row(R, R, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "DELETE",
    path: () => "/api/v1/datasources/absent",
    expect: row(R, R, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "POST",
    path: () => "/api/v1/datasources/absent/test",
    expect: row(R, R, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "GET",
    path: () => "/api/v1/datasources/absent/schemas",
    expect: row(R, DNF, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "GET",
    path: () => "/api/v1/datasources/absent/tables?schema=x",
    expect: row(R, DNF, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "GET",
    path: () => "/api/v1/datasources/absent/tables/t/columns",
    expect: row(R, DNF, R, DNF, DNF, S, S, DNF),
  },
  {
    method: "POST",
    path: (f) => `/api/v1/datasources/absent/grants/${f.workspace.name}`,
    expect: row(R, R, R, R, DNF, S, S, S),
  },
  {
    method: "DELETE",
    path: (f) => `/api/v1/datasources/absent/grants/${f.workspace.name}`,
    expect: row(R, R, R, R, DNF, S, S, S),
  },
  { method: "GET", path: () => "/api/v1/auth/users", expect: row(R, R, R, R, 200, S, S, S) },
  {
    method: "GET",
    path: () => `/api/v1/auth/users/${absent}`,
    expect: row(R, R, R, R, "auth.user.not_found", S, S, S),
  },
  {
    method: "POST",
    path: (f) => `/api/v1/auth/users/${f.users.viewer.id}/activate`,
    expect: row(R, R, R, R, 200, S, S, S),
  },
  { method: "GET", path: () => "/api/v1/audit", expect: row(R, R, R, 200, 200, 200, 200, 200) },
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
  {
    method: "POST",
    path: () => "/workspace/switch",
    body: () => ({ workspace: "acme" }),
    expect: row(302, 302, 302, 302, 302, SESSION, SESSION, SESSION),
  },
  // Templates (spec 2 §4.2): reads view/read; writes author/author; release author/promote;
  // switch author/switch; draft discard, discard, restore, switch, purges and the entity delete
  // are session-only (spec 2 §4.1 last line). Targets are absent, so "allowed" is the 404.
  { method: "GET", path: () => `/api/v1/templates?name=absent/t`, expect: all(TNF) },
  { method: "GET", path: () => `/api/v1/templates?prefix=absent`, expect: all(200) },
  { method: "GET", path: () => `/api/v1/templates?q=absent`, expect: all(200) },
  {
    method: "GET",
    path: () => `/api/v1/templates/versions?name=absent/t&version=1`,
    expect: all(TNF),
  },
  {
    method: "POST",
    path: () => "/api/v1/templates",
    body: (c) => ({ id: `matrix/${c}`, dialect: "SQLITE", display_name: "m", body: "SELECT 1" }),
    expect: row(R, 201, R, 201, 201, S, S, 201),
  },
  {
    method: "PUT",
    path: () => "/api/v1/templates",
    body: () => ({ id: "absent/t", display_name: "m", body: "SELECT 1" }),
    expect: row(R, IP, R, IP, IP, S, S, IP),
  },
  {
    method: "POST",
    path: () => "/api/v1/templates/render",
    body: () => ({ name: "absent/t" }),
    expect: row(R, TNF, R, TNF, TNF, S, S, TNF),
  },
  {
    method: "POST",
    path: () => "/api/v1/templates/import",
    body: (c) => ({ templates: [{ id: `library/${c}`, dialect: "DUCKDB", body: "SELECT 1" }] }),
    expect: row(R, 201, R, 201, 201, S, S, 201),
  },
  {
    method: "POST",
    path: () => "/api/v1/templates/release",
    body: () => ({ name: "absent/t" }),
    expect: row(R, R, TNF, R, TNF, S, S, "auth.key_issuer_role_lost"),
  },
  {
    method: "POST",
    path: () => "/api/v1/templates/current",
    body: () => ({ name: "absent/t", version: 1 }),
    expect: row(R, TNF, TNF, TNF, TNF, SESSION, SESSION, SESSION),
  },
  ...["draft/discard", "version/discard", "version/restore"].map((verb) => ({
    method: "POST",
    path: () => `/api/v1/templates/${verb}`,
    body: () => ({ name: "absent/t", version: 1 }),
    expect: row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  })),
  {
    method: "DELETE",
    path: () => "/api/v1/templates/version?name=absent/t&version=1",
    expect: row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  },
  {
    method: "DELETE",
    path: () => "/api/v1/templates?name=absent/t",
    expect: row(R, TNF, R, TNF, TNF, SESSION, SESSION, SESSION),
  },
  // Pipelines (spec 2 §4.1, all but execute): same rows as templates; the target id is absent.
  { method: "GET", path: () => `/api/v1/pipelines/${absent}`, expect: all(PNF) },
  { method: "GET", path: () => `/api/v1/pipelines/${absent}/versions`, expect: all(PNF) },
  { method: "GET", path: () => `/api/v1/pipelines/${absent}/versions/1`, expect: all(PNF) },
  { method: "GET", path: () => `/api/v1/pipelines/${absent}/versions/1/checks`, expect: all(PNF) },
  { method: "GET", path: () => `/api/v1/pipelines/${absent}/export`, expect: all(PNF) },
  { method: "GET", path: () => "/api/v1/pipelines?prefix=absent", expect: all(200) },
  { method: "GET", path: () => "/api/v1/pipelines?q=absent", expect: all(200) },
  {
    method: "POST",
    path: () => "/api/v1/pipelines",
    body: (c) => ({
      name: `matrix/${c.replace("_", "-")}`,
      nodes: [dql("a", { sql: "SELECT 1", source: "tempdb" })],
    }),
    expect: row(R, 201, R, 201, 201, S, S, 201),
  },
  {
    method: "POST",
    path: () => "/api/v1/pipelines/import",
    body: (c) => ({
      name: `imported/${c.replace("_", "-")}`,
      nodes: [dql("a", { sql: "SELECT 1", source: "tempdb" })],
    }),
    expect: row(R, 201, R, 201, 201, S, S, 201),
  },
  {
    method: "PUT",
    path: () => `/api/v1/pipelines/${absent}`,
    body: () => ({ name: "a/b", nodes: [] }),
    expect: row(R, IP, R, IP, IP, S, S, IP),
  },
  {
    method: "POST",
    path: () => `/api/v1/pipelines/${absent}/versions/1/checks/run`,
    expect: row(R, PNF, R, PNF, PNF, S, S, PNF),
  },
  {
    method: "POST",
    path: () => `/api/v1/pipelines/${absent}/release`,
    expect: row(R, R, PNF, R, PNF, S, S, "auth.key_issuer_role_lost"),
  },
  {
    method: "POST",
    path: () => `/api/v1/pipelines/${absent}/current`,
    body: () => ({ version: 1 }),
    expect: row(R, PNF, PNF, PNF, PNF, SESSION, SESSION, SESSION),
  },
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
    const s = await startTestServer({ store, env: UNBUDGETED });
    try {
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
    } finally {
      await s.close();
    }
  },
);

Deno.test("default-deny: every registered route declares an operation or is public", async () => {
  const s = await startTestServer();
  try {
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
  } finally {
    await s.close();
  }
});

Deno.test("a super admin acting without membership is audited on every governed request, reads included", async () => {
  const s = await startTestServer();
  try {
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
  } finally {
    await s.close();
  }
});
