/**
 * The workspace administration pages' partials over HTTP (issue 23 item 3): each refuses whom its
 * REST twin refuses, with the same code, and draws a refusal where it belongs (the member's row,
 * the form's field). Roles from tests/support/access_fixtures.ts: `acme` with a viewer, an author, a
 * promoter, a workspace admin, and a super admin who is no member.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { type AccessFixture, createUser, sessionHeaders } from "./support/access_fixtures.ts";
import { postForm, type TestServer } from "./support/harness.ts";
import { forEachServer } from "./support/servers.ts";
import { audits } from "./support/refusals.ts";

type Headers = Record<string, string>;

/** `re` is in the page; a failure shows the page's main text, not its whole markup. */
function has(text: string, re: RegExp): void {
  if (re.test(text)) return;
  const main = text.slice(text.indexOf("<main")).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
  throw new Error(`${re} is not in the page: ${main.slice(0, 600)}`);
}

/** The code of an error envelope, or of an error drawn into a page. */
function codeIn(text: string): string {
  if (text.startsWith("{")) return JSON.parse(text).error.code;
  return text.match(/\(([a-z_]+(?:\.[a-z_]+)+)\)/)?.[1] ?? "(none)";
}

async function flagsOf(s: TestServer, f: AccessFixture, email: string) {
  const m = (await s.runtime.workspaces.members(f.workspace.name)).members
    .find((x) => x.email === email);
  return m && { author: m.author, promoter: m.promoter, admin: m.admin };
}

forEachServer(
  "workspace partials refuse a viewer, an author and a promoter with 403 auth.role_required",
  async (s, f) => {
    const author = f.users.author;
    const partials: [string, Record<string, string>][] = [
      [`/partials/workspaces/acme/members/${author.id}/flags`, { admin: "true" }],
      [`/partials/workspaces/acme/members/${author.id}/remove`, {}],
      ["/partials/workspaces/acme/members", { email: "new@acme.example" }],
      ["/partials/workspaces/acme/invitations/x%40acme.example/revoke", {}],
      ["/partials/workspaces/acme/settings", { display_name: "Taken over" }],
    ];
    for (const role of ["viewer", "author", "promoter"] as const) {
      const headers = await sessionHeaders(s.runtime, f.users[role]);
      const page = await s.fetch("/workspaces/acme", {
        headers: { ...headers, accept: "text/html" },
      });
      equal(page.status, 403, `${role} page`);
      match(await page.text(), /auth\.role_required/);
      for (const [path, fields] of partials) {
        const r = await postForm(s, path, headers, fields);
        equal(r.status, 403, `${role} ${path}`);
        equal(codeIn(r.text), "auth.role_required", `${role} ${path}`);
      }
    }
    // Nothing moved.
    deepEqual(await flagsOf(s, f, author.email), { author: true, promoter: false, admin: false });
    equal((await s.runtime.workspaces.view("acme")).display_name, "Acme");
    // Someone of another workspace does not learn this one exists: 404, as REST answers.
    const stranger = await createUser(s.runtime, "stranger@elsewhere.example");
    await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "elsewhere" });
    await s.runtime.workspaces.addMember(f.users.super_admin.principal, "elsewhere", {
      email: stranger.email,
      admin: true,
    });
    const theirs = await sessionHeaders(s.runtime, stranger);
    const r = await postForm(s, "/partials/workspaces/acme/members", theirs, {
      email: "a@b.example",
    });
    equal(r.status, 404);
    equal(codeIn(r.text), "workspace.not_found");
  },
);

forEachServer(
  "super-admin partials answer 403 to a workspace admin, who sees no such controls",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin);
    const page = await s.fetch("/admin/workspaces", { headers: { ...admin, accept: "text/html" } });
    equal(page.status, 403);
    const own = await s.fetch("/workspaces/acme", { headers: { ...admin, accept: "text/html" } });
    equal(own.status, 200);
    const html = await own.text();
    ok(!html.includes("/admin/workspaces"), "a link to the super admin's page");
    ok(!/deactivate|reactivate|Create workspace/i.test(html), "a super admin's control");
    for (
      const [path, fields] of [
        ["/partials/admin/workspaces", { name: "mine" }],
        ["/partials/admin/workspaces/acme/deactivate", {}],
        ["/partials/admin/workspaces/acme/reactivate", {}],
      ] as const
    ) {
      const r = await postForm(s, path, admin, fields);
      equal(r.status, 403, path);
      equal(codeIn(r.text), "auth.role_required", path);
    }
    equal(await s.runtime.workspaces.get("mine"), null);
    equal((await s.runtime.workspaces.get("acme"))?.deactivated_at, null);
  },
);

forEachServer(
  "flags: the last admin's demotion is refused 409 on their row; admin brings author along",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin);
    const self = `/partials/workspaces/acme/members/${f.users.ws_admin.id}/flags`;
    // htmx: the row comes back with the refusal on it, its boxes as stored.
    const row = await postForm(s, self, admin, { author: "true" }, true);
    equal(row.status, 409);
    equal(codeIn(row.text), "workspace.last_admin");
    has(row.text, new RegExp(`^<tr id="member-${f.users.ws_admin.id}"`));
    has(row.text, /role="alert"[^>]*>The change would leave workspace acme without an admin/);
    has(row.text, /id="member-[^"]+-admin"[^>]*checked/);
    // Without the script: the whole page, the refusal on that row.
    const plain = await postForm(s, self, admin, { author: "true" });
    equal(plain.status, 409);
    has(plain.text, /<tr id="member-[^"]+" class="has-error">[\s\S]*workspace\.last_admin/);
    // Removing the last admin is the same refusal.
    const remove = await postForm(
      s,
      `/partials/workspaces/acme/members/${f.users.ws_admin.id}/remove`,
      admin,
    );
    equal(remove.status, 409);
    equal(codeIn(remove.text), "workspace.last_admin");
    deepEqual(await flagsOf(s, f, f.users.ws_admin.email), {
      author: true,
      promoter: false,
      admin: true,
    });

    // A promotion through the row: admin implies author; htmx gets the row saying so.
    const viewer = f.users.viewer;
    const up = await postForm(
      s,
      `/partials/workspaces/acme/members/${viewer.id}/flags`,
      admin,
      { admin: "true", promoter: "true" },
      true,
    );
    equal(up.status, 200);
    has(up.text, /Saved: author, promoter, admin\./);
    deepEqual(await flagsOf(s, f, viewer.email), { author: true, promoter: true, admin: true });
    // Now there are two admins, so the first may step down (a plain post: back to the page).
    const down = await postForm(s, self, admin, { author: "true" });
    equal(down.status, 303);
    equal(down.location, `/workspaces/acme#member-${f.users.ws_admin.id}`);
    const changed = (await audits(s.runtime.db, "workspace.member_flags_changed")).at(-1);
    deepEqual(changed?.details.to, { author: true, promoter: false, admin: false });
    // Someone who is no member is the REST answer: not found.
    const ghost = await postForm(
      s,
      `/partials/workspaces/acme/members/${crypto.randomUUID()}/flags`,
      await sessionHeaders(s.runtime, f.users.super_admin),
      {},
    );
    equal(ghost.status, 404);
    equal(codeIn(ghost.text), "workspace.not_found");
  },
);

forEachServer(
  "add by email: a member, an existing member, an invitation; bad and refused emails on the field",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin);
    const add = (fields: Record<string, string>) =>
      postForm(s, "/partials/workspaces/acme/members", admin, fields);
    const someone = await createUser(s.runtime, "someone@acme.example");

    const added = await add({ email: "Someone@Acme.example", promoter: "true" });
    equal(added.status, 303);
    equal(added.location, "/workspaces/acme?done=added&who=someone%40acme.example");
    deepEqual(await flagsOf(s, f, someone.email), { author: false, promoter: true, admin: false });
    const shown = await s.fetch(added.location!, { headers: { ...admin, accept: "text/html" } })
      .then((r) => r.text());
    has(shown, /someone@acme\.example is now a member, as promoter\./);

    const again = await add({ email: "someone@acme.example", admin: "true" });
    equal(again.location, "/workspaces/acme?done=existing&who=someone%40acme.example");
    deepEqual(await flagsOf(s, f, someone.email), { author: false, promoter: true, admin: false });

    const invited = await add({ email: "later@acme.example", author: "true" });
    equal(invited.location, "/workspaces/acme?done=invited&who=later%40acme.example");
    const page = await s.fetch(invited.location!, { headers: { ...admin, accept: "text/html" } })
      .then((r) => r.text());
    has(
      page,
      /No account uses later@acme\.example yet, so an invitation was created \(as author\)/,
    );
    has(page, /id="invitations"[\s\S]*later@acme\.example[\s\S]*as author/);

    for (const email of ["", "not-an-email"]) {
      const bad = await add({ email, admin: "true" });
      equal(bad.status, 400, email);
      has(bad.text, /id="add-email-error"[^>]*>Field .email. is invalid/);
      // The form keeps what was asked.
      has(bad.text, /id="add-admin"[^>]*checked/);
    }
  },
);

forEachServer(
  "add by email outside the allowlist: 400 auth.login.domain_not_allowed on the field",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin);
    const r = await postForm(s, "/partials/workspaces/acme/members", admin, {
      email: "who@elsewhere.example",
    });
    equal(r.status, 400);
    has(r.text, /id="add-email-error"[^>]*>The email domain elsewhere\.example is not/);
    has(r.text, /value="who@elsewhere\.example"/);
    deepEqual((await s.runtime.workspaces.members("acme")).invitations, []);
  },
  { env: { SERVICE_AUTH_ALLOWLIST_DOMAINS: "acme.example" } },
);

forEachServer(
  "invitations: revoke answers 404 for none, then removes one; settings refuse an empty name",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin);
    const none = await postForm(
      s,
      "/partials/workspaces/acme/invitations/nobody%40x.example/revoke",
      admin,
    );
    equal(none.status, 404);
    equal(codeIn(none.text), "workspace.invitation.not_found");
    await s.runtime.workspaces.addMember(f.users.ws_admin.principal, "acme", {
      email: "Later@X.example",
    });
    const gone = await postForm(
      s,
      "/partials/workspaces/acme/invitations/later%40x.example/revoke",
      admin,
    );
    equal(gone.status, 303);
    equal(gone.location, "/workspaces/acme?done=revoked&who=later%40x.example");
    deepEqual((await s.runtime.workspaces.members("acme")).invitations, []);

    const empty = await postForm(s, "/partials/workspaces/acme/settings", admin, {
      display_name: " ",
    });
    equal(empty.status, 400);
    has(empty.text, /id="ws-display-name-error"/);
    const saved = await postForm(s, "/partials/workspaces/acme/settings", admin, {
      display_name: "Acme Corp",
    });
    equal(saved.location, "/workspaces/acme?done=settings");
    equal((await s.runtime.workspaces.view("acme")).display_name, "Acme Corp");
  },
);

forEachServer(
  "super admin: create refuses bad and taken names on the field; deactivate and reactivate",
  async (s, f) => {
    const su = await sessionHeaders(s.runtime, f.users.super_admin);
    const create = (fields: Record<string, string>) =>
      postForm(s, "/partials/admin/workspaces", su, fields);
    const bad = await create({ name: "Bad Name" });
    equal(bad.status, 400);
    has(bad.text, /id="new-ws-name-error"[^>]*>The workspace name must match/);
    const taken = await create({ name: "acme" });
    equal(taken.status, 409);
    has(taken.text, /id="new-ws-name-error"[^>]*>The workspace name acme is taken/);
    const made = await create({ name: "sales", display_name: "" });
    equal(made.location, "/admin/workspaces?done=created&name=sales");
    equal((await s.runtime.workspaces.view("sales")).display_name, "sales");

    const off = await postForm(s, "/partials/admin/workspaces/sales/deactivate", su);
    equal(off.location, "/admin/workspaces?done=deactivated&name=sales");
    ok((await s.runtime.workspaces.get("sales"))?.deactivated_at);
    const list = await s.fetch("/admin/workspaces", { headers: { ...su, accept: "text/html" } })
      .then((r) => r.text());
    has(list, /<tr class="deactivated">[\s\S]*?sales[\s\S]*?deactivated \d{4}-\d{2}-\d{2}/);
    // A deactivated workspace's add-member is REST's answer too: 404 workspace.inactive.
    const inactive = await postForm(s, "/partials/workspaces/sales/members", su, {
      email: "a@b.c",
    });
    equal(inactive.status, 404);
    equal(codeIn(inactive.text), "workspace.inactive");
    const on = await postForm(s, "/partials/admin/workspaces/sales/reactivate", su);
    equal(on.location, "/admin/workspaces?done=reactivated&name=sales");
    equal((await s.runtime.workspaces.get("sales"))?.deactivated_at, null);
    for (const event of ["workspace.deactivated", "workspace.reactivated"]) {
      const rows = await audits(s.runtime.db, event);
      deepEqual(rows.map((a) => a.details.workspace), ["sales"], event);
    }
  },
);
