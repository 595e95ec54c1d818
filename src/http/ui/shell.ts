/**
 * What every signed-in page needs besides its own data: the shell's context (who, where, which
 * theme, where else) and which verbs the viewer's role allows, decided by the same operation
 * matrix as REST so the UI never draws a control the API would refuse.
 */
import {
  authorize,
  type Operation,
  type Principal,
  type WorkspaceContext,
} from "../../identity/mod.ts";
import type { Services } from "../../services.ts";
import type { Theme, Visitor } from "../../../ui/layouts/base.tsx";
import type { ShellContext } from "../../../ui/layouts/shell.tsx";
import type { VersionRow } from "../../../ui/components/versions_card.tsx";
import type { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { AppContext } from "../context.ts";
import { formText } from "../input.ts";
import type { AccessFor, RouteInput, Router, RouteSpec } from "../routing.ts";
import { ensureCsrfToken } from "../cookies.ts";

/** The UI's pages see every group, and whether cookies go out `Secure`. */
export type UiPageDeps =
  & Services
  & { secureCookies: boolean };

/** The operation behind a nav item that not everyone may open. */
const NAV_ACCESS = {
  endpoints: "endpoints.manage",
  audit: "audit.read",
  users: "users.admin",
  workspace: "members.manage",
  workspaces: "workspaces.create",
} as const;

/** The frame every signed-in page draws: who, where, which theme, where else. */
export async function shellContext(
  c: AppContext,
  deps: UiPageDeps,
  p: Principal,
): Promise<ShellContext> {
  const [user, workspaces] = await Promise.all([
    deps.identity.users.get(p.userId),
    deps.admin.workspaces.listForUser({ userId: p.userId, isSuperAdmin: p.isSuperAdmin }),
  ]);
  return {
    csrf: ensureCsrfToken(c, deps.secureCookies),
    theme: (user.theme as Theme) ?? "system",
    user: { displayName: p.displayName, email: p.email, isSuperAdmin: p.isSuperAdmin },
    workspace: c.get("workspace")?.name ?? null,
    // A deactivated workspace cannot be selected, though a super admin's list has it.
    workspaces: workspaces.filter((w) => !w.deactivated_at),
    // A link whose page would refuse this person is not drawn: they would only meet the 403.
    refused: (Object.keys(NAV_ACCESS) as (keyof typeof NAV_ACCESS)[]).filter((item) =>
      !allows({ actor: p, workspace: c.get("workspace") ?? null }, NAV_ACCESS[item])
    ),
  };
}

/** Whether the operation matrix lets `actor` do `operation` in `workspace`. */
export function allows(
  at: { actor: Principal; workspace: WorkspaceContext | null },
  operation: Operation,
): boolean {
  try {
    authorize({ operation, principal: at.actor, workspace: at.workspace, membershipCount: 1 });
    return true;
  } catch {
    return false;
  }
}

/** Display names of users by id, for "who" columns; an unknown id keeps no name. */
export async function userNames(
  deps: UiPageDeps,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const found = await Promise.all(
    unique.map((id) => deps.identity.users.get(id).catch(() => undefined)),
  );
  const names = new Map<string, string>();
  found.forEach((u, i) => {
    if (u) names.set(unique[i], u.display_name ?? u.email);
  });
  return names;
}

/** Versions as the versions card lists them: newest first, each with its author's name. */
export async function versionRows(
  deps: UiPageDeps,
  versions: readonly {
    version: number;
    status: string;
    created_by: string;
    created_at: string;
    released_at: string | null;
  }[],
): Promise<VersionRow[]> {
  const names = await userNames(deps, versions.map((v) => v.created_by));
  return versions.map((v) => ({
    version: v.version,
    status: v.status,
    created_by_name: names.get(v.created_by) ?? "unknown",
    created_at: v.created_at,
    released_at: v.released_at,
  })).reverse();
}

/**
 * A browser page or partial: every one is answered as HTML (so it stays out of the API document)
 * and listed under the `pages` tag; the route states only what is its own.
 */
export function pageRoute<S extends Omit<RouteSpec, "tag" | "kind">>(
  spec: S,
): S & { tag: "pages"; kind: "html" } {
  return { ...spec, tag: "pages", kind: "html" };
}

/** A route's path parameters schema. */
type Params = NonNullable<RouteSpec["params"]>;

/**
 * A browser form's post: a page route whose handler gets the form's text fields besides its
 * input, since every such handler starts from what the person typed.
 */
export function formPost<
  P extends Params = Params,
  A extends RouteSpec["access"] = RouteSpec["access"],
  F extends AccessFor | undefined = undefined,
>(
  router: Router,
  spec: Omit<
    RouteSpec<P, Params, z.ZodUndefined, A, F, undefined>,
    "method" | "tag" | "kind"
  >,
  handler: (
    c: AppContext,
    input: RouteInput<P, Params, z.ZodUndefined, A, F>,
    form: Record<string, string>,
  ) => Response | Promise<Response>,
): void {
  router.add(
    pageRoute({ ...spec, method: "post" }),
    async (c, input) => handler(c, input, await formText(c)),
  );
}

/**
 * A day from a filter's date field as the first (or, for `end`, the last) instant of that UTC
 * day; anything else is no bound.
 */
export function dayBound(value: string | undefined, end: boolean): string | undefined {
  return value && /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T${end ? "23:59:59.999" : "00:00:00.000"}Z`
    : undefined;
}

/**
 * The frame for an error or not-found page: a signed-in browser session keeps its shell; anyone
 * else (and a failure to draw the frame, say with the store down) gets none.
 */
export async function errorFrame(
  c: AppContext,
  deps: UiPageDeps,
): Promise<ShellContext | undefined> {
  const p = c.get("principal");
  if (!p || p.authMethod !== "OIDC") return undefined;
  return await shellContext(c, deps, p).catch(() => undefined);
}

/**
 * Who is reading a public page, when it is someone signed in in this browser: their name (which
 * leads back to the app) and their theme. Anyone else, or a failed read, is anonymous.
 */
export async function publicVisitor(
  c: AppContext,
  deps: Pick<Services, "identity">,
): Promise<Visitor | undefined> {
  const p = c.get("principal");
  if (!p || p.authMethod !== "OIDC") return undefined;
  const user = await deps.identity.users.get(p.userId).catch(() => undefined);
  return { name: p.displayName, theme: (user?.theme as Theme | undefined) ?? "system" };
}

/**
 * Passes only a refusal a page draws itself: an AppError under 500 other than the matrix's 403,
 * which keeps its own page like a fault keeps the error page; anything else is thrown on.
 */
export function rethrowUnlessRefusal(e: unknown): asserts e is AppError {
  if (!(e instanceof AppError) || e.status >= 500 || e.status === 403) throw e;
}

/** `back` with one query pair added (an act's flash), its `#fragment` kept last. */
export function withFlash(back: string, key: string, value: string): string {
  const [path, hash] = back.split("#");
  const sep = path.includes("?") ? "&" : "?";
  return `${path}${sep}${key}=${encodeURIComponent(value)}${hash ? `#${hash}` : ""}`;
}

/**
 * A no-script form's act: the browser goes on to the address `act` answers; a refusal sends it
 * back to `back` with `error=code: message` for the page to show.
 */
export async function actOrBack(
  c: AppContext,
  back: string,
  act: () => Promise<string>,
): Promise<Response> {
  try {
    return c.redirect(await act(), 303);
  } catch (e) {
    rethrowUnlessRefusal(e);
    return c.redirect(withFlash(back, "error", `${e.code}: ${e.userMessage}`), 303);
  }
}
