/**
 * The users pages' partials at the HTTP level, on both stores (issue 23 item 4): each refuses what
 * its REST twin refuses, with the same status and code; the create form's refusals come back on
 * the field they name and leave nothing behind; the pages answer whom the API answers.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer, type TestServer, withTestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { findUserByEmail } from "../src/identity/users_repo.ts";

const form = (headers: Record<string, string>) => ({
  ...headers,
  "content-type": "application/x-www-form-urlencoded",
});

async function html(s: TestServer, method: string, path: string, headers: object, body?: string) {
  const res = await s.fetch(path, {
    method,
    headers: { ...form(headers as Record<string, string>), accept: "text/html" },
    body,
    redirect: "manual",
  });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] the create form's refusals land on their field and create nothing`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      await withTestServer({ store, env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } }, async (s) => {
        const f = await seedRoles(s.runtime);
        const admin = await sessionHeaders(s.runtime, f.users.super_admin);
        await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "sleepy" });
        await s.runtime.workspaces.deactivate(f.users.super_admin.principal, "sleepy");
        const cases: [Record<string, string>, number, string, string][] = [
          [{ email: "VIEWER@acme.example" }, 409, "auth.user.email_taken", "email"],
          [{ email: "not an address" }, 400, "pipeline.execution.invalid_parameter_type", "email"],
          [
            { email: "x@example.com", workspace: "nowhere" },
            404,
            "workspace.not_found",
            "workspace",
          ],
          [{ email: "x@example.com", workspace: "sleepy" }, 404, "workspace.inactive", "workspace"],
          [
            { email: "x@example.com", author: "maybe" },
            400,
            "pipeline.execution.invalid_parameter_type",
            "author",
          ],
        ];
        for (const [fields, status, code, field] of cases) {
          const body = new URLSearchParams(fields).toString();
          const json = await call(s, "POST", "/partials/admin/users", admin, body);
          equal(json.status, status, code);
          equal(json.body.error.code, code);
          const page = await html(s, "POST", "/partials/admin/users", admin, body);
          equal(page.status, status, code);
          match(page.text, new RegExp(`id="user-${field.replace("_", "-")}-error"`), code);
          // The form keeps what was typed.
          match(page.text, new RegExp(`value="${fields.email}"`), code);
        }
        equal(await findUserByEmail(s.runtime.db, "x@example.com"), undefined);
      });
    },
  });

  Deno.test({
    name: `[${store}] the act partials refuse what their REST twins refuse, with the same code`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const s = await startTestServer({ store, env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } });
      try {
        const f = await seedRoles(s.runtime);
        const admin = await sessionHeaders(s.runtime, f.users.super_admin);
        const wsAdmin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
        const adminKey = {
          "SVC-API-Key": await userKey(s.runtime, f.users.super_admin, f.workspace.id, ["author"]),
        };
        const system = s.runtime.systemActor.id;
        const unknown = crypto.randomUUID();
        const answer = async (method: string, path: string, who: Record<string, string>) => {
          const r = await call(s, method, path, who);
          return [r.status, r.body.error?.code ?? "ok"];
        };

        // The four flips: the partial answers exactly what POST /api/v1/auth/users/… answers.
        for (const verb of ["deactivate", "activate", "grant-admin", "revoke-admin"]) {
          for (
            const [who, id] of [
              [admin, unknown],
              [admin, "not-a-uuid"],
              [wsAdmin, f.users.viewer.id],
              [adminKey, unknown],
            ] as const
          ) {
            deepEqual(
              await answer("POST", `/partials/admin/users/${id}/${verb}`, who),
              await answer("POST", `/api/v1/auth/users/${id}/${verb}`, who),
              `${verb} ${id}`,
            );
          }
        }
        // Done through the form: the same user view as REST, or back to the user's page.
        const flipped = await call(
          s,
          "POST",
          `/partials/admin/users/${f.users.author.id}/deactivate`,
          admin,
        );
        equal(flipped.body.data.is_active, false);
        const back = await html(
          s,
          "POST",
          `/partials/admin/users/${f.users.author.id}/activate`,
          admin,
        );
        deepEqual(
          [back.status, back.location],
          [303, `/admin/users/${f.users.author.id}?done=activate`],
        );
        equal((await s.runtime.users.get(f.users.author.id)).is_active, true);

        // The local acts: the system actor and unknown ids are no such user, PATCH or POST alike;
        // a key is refused whatever its owner; a workspace admin holds no such role.
        for (const verb of ["reset-password", "disable-local", "unlock"]) {
          for (const method of ["PATCH", "POST"]) {
            const path = (id: string) => `/partials/admin/users/${id}/${verb}`;
            deepEqual(await answer(method, path(system), admin), [404, "auth.user.not_found"]);
            deepEqual(await answer(method, path(unknown), admin), [404, "auth.user.not_found"]);
            deepEqual(
              await answer(method, path(f.users.viewer.id), adminKey),
              [403, "auth.session.required"],
            );
            deepEqual(
              await answer(method, path(f.users.viewer.id), wsAdmin),
              [403, "auth.role_required"],
            );
          }
        }
        const viewer = await s.runtime.users.get(f.users.viewer.id);
        ok(viewer.password_hash !== null, "nothing refused changed the viewer");

        // Revoking the only active super admin is allowed, as by REST, but its dialog says so.
        const dialog = async () =>
          (await html(
            s,
            "GET",
            `/admin/users/${f.users.super_admin.id}?confirm=revoke-admin`,
            admin,
          )).text;
        match(await dialog(), /This is you[\s\S]*You are the only active super admin/);
        await call(s, "POST", `/partials/admin/users/${f.users.viewer.id}/grant-admin`, admin);
        ok(!(await dialog()).includes("only active super admin"));
        await call(s, "POST", `/partials/admin/users/${f.users.viewer.id}/deactivate`, admin);
        match(await dialog(), /only active super admin/, "a deactivated one does not count");
      } finally {
        await s.close();
      }
    },
  });
}

Deno.test("the users pages answer a super admin, search and page, and 404 an unknown user", async () => {
  await withTestServer({ env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } }, async (s) => {
    const f = await seedRoles(s.runtime);
    const admin = await sessionHeaders(s.runtime, f.users.super_admin);
    const get = (path: string, headers = admin) =>
      s.fetch(path, { headers: { ...headers, accept: "text/html" } })
        .then(async (r) => ({ status: r.status, text: await r.text(), r }));
    const found = await get("/admin/users?q=AUTH");
    equal(found.status, 200);
    match(found.text, /author@acme\.example/);
    ok(!found.text.includes("viewer@acme.example"));
    const paged = await get("/admin/users?limit=2&offset=2");
    equal((paged.text.match(/class="title" href="\/admin\/users\//g) ?? []).length, 2);
    match(paged.text, /3–4 of \d+/);
    const one = await get(`/admin/users/${f.users.viewer.id}`);
    equal(one.status, 200);
    equal(one.r.headers.get("cache-control"), "no-store");
    equal((await get(`/admin/users/${crypto.randomUUID()}`)).status, 404);
    match(one.text, /Reset password/);
    match(found.text, /New local user/);
  });
});

Deno.test("with local accounts off the pages offer no local user and no password", async () => {
  await withTestServer({}, async (s) => {
    const f = await seedRoles(s.runtime);
    const admin = { ...await sessionHeaders(s.runtime, f.users.super_admin), accept: "text/html" };
    const list = await (await s.fetch("/admin/users", { headers: admin })).text();
    ok(!list.includes("New local user"));
    const one = await (await s.fetch(`/admin/users/${f.users.viewer.id}`, { headers: admin }))
      .text();
    ok(!one.includes("Reset password") && !one.includes("Issue a local password"));
    match(one, /Disable local sign-in/, "a password set before stays clearable");
  });
});
