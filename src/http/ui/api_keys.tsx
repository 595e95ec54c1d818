/**
 * `/settings/api-keys`: the viewer's own keys over the same key service as `/api/v1/auth/api-keys`.
 * Issuance keeps the service's rules and adds "viewers never mint keys" (docs/ui.md#api-keys) for
 * every kind, so the page draws the form only for an author (or above) somewhere.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { type Principal, rolesHeld } from "../../identity/mod.ts";
import {
  ApiKeysPage,
  IssuedSecret,
  type KeyDraft,
  type KeyFormError,
} from "../../../ui/pages/api_keys.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import { formPost, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const MINTS = ["author", "admin", "super_admin"];
const FIELDS = ["name", "kind", "scope", "workspace", "expires_in", "expires_at", "bindings"];

/** Where a refusal of the issue belongs on the form. */
function placed(e: AppError): KeyFormError {
  const d = e.details as Record<string, unknown>;
  const named = typeof d.field === "string"
    ? d.field.replace(/^scopes$/, "scope")
    : e.code === "auth.api_key.expiry_invalid"
    ? (d.reason === "unknown_preset" ? "expires_in" : "expires_at")
    : e.code === "auth.scope.insufficient" || e.code === "auth.key_scope_unavailable"
    ? "scope"
    : e.code === "endpoint.key_kind_refused"
    ? (d.reason === "bindings_not_allowed" ? "bindings" : "kind")
    : undefined;
  const field = named && FIELDS.includes(named) ? named as keyof KeyDraft : undefined;
  return { code: e.code, message: e.userMessage, field };
}

/**
 * Where the answer's Done leads when the form was posted from another page of the app (an
 * endpoint's try-it panel): a path of this site only, so the field cannot send anyone elsewhere.
 */
export function backOf(value: string | undefined): string | undefined {
  return value && /^\/(?![/\\])[\x21-\x7e]{0,500}$/.test(value) ? value : undefined;
}

/** The service's body from the form: scopes only for user keys, bindings only for endpoint keys. */
function bodyOf(d: KeyDraft) {
  const bindings = d.bindings.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return {
    name: d.name,
    kind: d.kind,
    ...(d.kind === "user" ? { scopes: [d.scope] } : {}),
    ...(d.kind === "endpoint" && bindings.length > 0
      ? { bindings: bindings.map((path) => ({ path })) }
      : {}),
    expires_in: d.expires_in,
    ...(d.expires_in === "custom" && d.expires_at ? { expires_at: d.expires_at } : {}),
  };
}

export function apiKeyPageRoutes(router: Router, deps: UiPageDeps): void {
  /** The kinds this person may mint: none for a viewer (or a promoter who is not an author). */
  const kindsFor = (actor: Principal): string[] =>
    actor.isSuperAdmin ? ["user", "endpoint", "server"] : ["user", "endpoint"];

  const page = async (
    c: AppContext,
    actor: Principal,
    extra: {
      draft?: KeyDraft;
      error?: KeyFormError;
      issued?: { name: string; id: string; key: string };
      back?: string;
    } = {},
    status = 200,
  ) => {
    const [ctx, keys] = await Promise.all([
      shellContext(c, deps, actor),
      deps.identity.keys.listOwn(actor.userId),
    ]);
    // Where this person is an author or above; the service judges the chosen one again.
    const workspaces = ctx.workspaces.filter((w) => MINTS.includes(w.role));
    const draft = extra.draft ?? {
      name: "",
      kind: "user",
      scope: "read",
      workspace: workspaces.find((w) => w.name === ctx.workspace)?.name ?? workspaces[0]?.name ??
        "",
      expires_in: "90d",
      expires_at: "",
      bindings: "",
    };
    const html = renderPage(
      <ApiKeysPage
        ctx={ctx}
        keys={keys}
        form={workspaces.length > 0
          ? { draft, error: extra.error, kinds: kindsFor(actor), workspaces, back: extra.back }
          : null}
        issued={extra.issued && (
          <IssuedSecret
            name={extra.issued.name}
            id={extra.issued.id}
            secret={extra.issued.key}
            back={extra.back}
          />
        )}
        confirm={c.req.query("revoke")}
        revoked={c.req.query("revoked")}
        now={Date.now()}
      />,
    );
    // The answer that holds a secret is never kept by a cache or the back button.
    if (extra.issued) c.header("Cache-Control", "no-store");
    return c.html(html, status as 200);
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/settings/api-keys",
      summary: "The viewer's own API keys, the form that issues one, revocation",
      access: "keys.manage_own",
    }),
    (c, { actor }) => page(c, actor),
  );

  formPost(router, {
    path: "/partials/account/api-keys",
    summary: "Issue an API key from the form; its secret is in this answer only",
    access: "keys.manage_own",
    errors: [
      "auth.role_required",
      "auth.scope.insufficient",
      "auth.key_scope_unavailable",
      "endpoint.key_kind_refused",
      "auth.api_key.expiry_invalid",
    ],
  }, async (c, { actor }, f) => {
    const draft: KeyDraft = {
      name: f.name ?? "",
      kind: f.kind ?? "user",
      scope: f.scope ?? "read",
      workspace: f.workspace ?? "",
      expires_in: f.expires_in ?? "never",
      expires_at: f.expires_at ?? "",
      bindings: f.bindings ?? "",
    };
    const back = backOf(f.back);
    const user = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
    const workspace = await deps.admin.workspaces.resolveForUser(user, draft.workspace);
    if (!workspace) throw new AppError("workspace.not_found", { workspace: draft.workspace });
    const flags = workspace.flags ?? { author: false, promoter: false, admin: false };
    // Viewers never mint keys, of any kind (docs/ui.md#api-keys).
    const held = rolesHeld(flags, actor.isSuperAdmin);
    if (!held.includes("author")) {
      throw new AppError("auth.role_required", { required: "author", held });
    }
    try {
      const issued = await deps.identity.keys.issue(
        { ...actor, activeWorkspaceId: workspace.id },
        bodyOf(draft),
        { flags, isSuperAdmin: actor.isSuperAdmin },
      );
      return page(c, actor, { issued, back }, 201);
    } catch (e) {
      // A refusal of what was asked (its shape, scope, kind or expiry) belongs on the form.
      if (!(e instanceof AppError) || e.status >= 500 || e.code === "auth.role_required") throw e;
      return page(c, actor, { draft, error: placed(e), back }, e.status);
    }
  });

  router.add(
    pageRoute({
      method: "post",
      path: "/partials/account/api-keys/:key_id/revoke",
      summary: "Revoke one of the viewer's keys (or one pinned to a workspace they administer)",
      access: "keys.manage_own",
      params: z.object({ key_id: z.string().max(100) }),
      errors: ["auth.api_key.not_found"],
    }),
    async (c, { actor, params }) => {
      const who = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
      await deps.identity.keys.revoke(actor, params.key_id, async (workspaceId) => {
        if (actor.isSuperAdmin) return true;
        const pinned = await deps.admin.workspaces.resolveById(who, workspaceId);
        return pinned.context?.flags?.admin === true;
      });
      return c.redirect(`/settings/api-keys?revoked=${encodeURIComponent(params.key_id)}`, 303);
    },
  );
}
