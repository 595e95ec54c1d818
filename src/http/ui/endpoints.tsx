/**
 * The published-endpoint pages: the workspace's endpoints with their acts and the viewer's own
 * endpoint keys (`/endpoints`), one endpoint with its try-it panel (`/endpoints/view?path=`),
 * and the result table the panel shows after a call. Every read is the management API's
 * (`EndpointService`, the `endpoints.manage` row), so the pages refuse whom it refuses; the acts
 * are in endpoint_acts.tsx.
 */
import { renderToString } from "preact-render-to-string";
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { type EndpointContext, type EndpointView, parseNode } from "../../endpoints/mod.ts";
import {
  type ApiKeyView,
  type Principal,
  rolesHeld,
  type WorkspaceContext,
} from "../../identity/mod.ts";
import type { EndpointSummary } from "../../../ui/components/endpoint_parts.tsx";
import type { TryKey } from "../../../ui/components/endpoint_try.tsx";
import type { ParameterView } from "../../pipelines/mod.ts";
import { ResultTable } from "../../../ui/components/result_table.tsx";
import { EndpointPage } from "../../../ui/pages/endpoint.tsx";
import {
  type BindDraft,
  type BindError,
  EndpointsPage,
  type OwnEndpointKey,
} from "../../../ui/pages/endpoints.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import { pageRoute, shellContext, type UiPageDeps, userNames } from "./shell.ts";

const ROWS = 50;
const TRY_ROWS = 50;

/** The viewer's live keys pinned to this workspace: what the pages offer to bind or call with. */
export async function liveKeysHere(
  deps: UiPageDeps,
  actor: Principal,
  workspace: WorkspaceContext,
): Promise<ApiKeyView[]> {
  const now = Date.now();
  return (await deps.identity.keys.listOwn(actor.userId)).filter((k) =>
    !k.is_revoked && k.workspace === workspace.name &&
    (k.expires_at === null || Date.parse(k.expires_at) > now)
  );
}

/** The endpoint record with the release a call runs now, as the pages draw it. */
async function summaries(
  deps: UiPageDeps,
  at: EndpointContext,
  views: EndpointView[],
): Promise<EndpointSummary[]> {
  // One read per distinct pipeline, by the rule serving follows.
  const ids = [...new Set(views.map((e) => e.pipeline_id))];
  const releases = new Map(
    await Promise.all(
      ids.map(async (id) => [id, await deps.publishing.endpoints.servedRelease(at, id)] as const),
    ),
  );
  return views.map((e) => ({
    path_pattern: e.path_pattern,
    pipeline_id: e.pipeline_id,
    pipeline_name: e.pipeline_name,
    release: releases.get(e.pipeline_id) ?? null,
    enabled: e.enabled,
    timeout_seconds: e.timeout_seconds,
    description: e.description,
    bindings: e.bindings,
  }));
}

/** Every pattern and each of its prefixes, `/` first: the nodes a binding would name. */
function nodesOf(patterns: string[]): string[] {
  const nodes = new Set<string>(["/"]);
  for (const p of patterns) {
    const parts = p.split("/").slice(1);
    parts.forEach((_, i) => nodes.add("/" + parts.slice(0, i + 1).join("/")));
  }
  return [...nodes].sort();
}

/**
 * Whether a binding on `node` decides for every URL of `pattern`: each of its segments is a
 * variable, or the pattern's literal there. Then a user key reaches none of the pattern's URLs.
 */
function decidesAll(node: string, pattern: string): boolean {
  const n = parseNode(node).segments;
  const p = parseNode(pattern).segments;
  return n.length <= p.length &&
    n.every((s, i) => "variable" in s || ("literal" in p[i] && p[i].literal === s.literal));
}

/**
 * The viewer's keys that can reach some URL of the endpoint by the binding walk
 * (docs/decisions.md#the-nearest-binding-decides): endpoint keys bound on a node that decides for
 * it; user keys holding execute unless a binding decides for every URL.
 */
export function keysReaching(keys: ApiKeyView[], e: EndpointView): TryKey[] {
  const boundAt = new Map<string, string>();
  for (const b of e.bindings) if (!boundAt.has(b.key_id)) boundAt.set(b.key_id, b.path);
  const closed = e.bindings.some((b) => decidesAll(b.path, e.path_pattern));
  return keys.flatMap((k): TryKey[] => {
    const at = boundAt.get(k.id);
    if (k.kind === "endpoint" && at) {
      return [{ id: k.id, name: k.name, note: `endpoint key, bound at ${at}` }];
    }
    if (k.kind === "user" && !closed && k.scopes.some((s) => s === "execute" || s === "author")) {
      return [{ id: k.id, name: k.name, note: `user key, ${k.scopes.join(", ")}` }];
    }
    return [];
  });
}

/** The `/endpoints` page, with the bind form as typed and its refusal when there is one. */
export async function endpointsPage(
  c: AppContext,
  deps: UiPageDeps,
  at: { actor: Principal; workspace: WorkspaceContext; page: { offset: number; limit: number } },
  extra: { bind?: { draft: BindDraft; error?: BindError }; flash?: string } = {},
  status = 200,
): Promise<Response> {
  const { actor, workspace, page } = at;
  const ctx0 = { actor, workspaceId: workspace.id };
  const [ctx, listing, keys] = await Promise.all([
    shellContext(c, deps, actor),
    deps.publishing.endpoints.list(ctx0, page),
    liveKeysHere(deps, actor, workspace),
  ]);
  const endpoints = await summaries(deps, ctx0, listing.items);
  const asked = c.req.query("unpublish");
  const confirm = asked
    ? endpoints.find((e) => e.path_pattern === asked) ??
      (await summaries(deps, ctx0, [await deps.publishing.endpoints.get(ctx0, asked)]))[0]
    : undefined;
  const own: OwnEndpointKey[] = keys.filter((k) => k.kind === "endpoint").map((k) => ({
    id: k.id,
    name: k.name,
    bindings: k.bindings.map((b) => b.path),
  }));
  const html = renderPage(
    <EndpointsPage
      ctx={ctx}
      origin={deps.platform.origin()}
      endpoints={endpoints}
      offset={page.offset}
      limit={page.limit}
      total={listing.total}
      keys={own}
      nodes={nodesOf(endpoints.map((e) => e.path_pattern))}
      bind={extra.bind ?? { draft: { key_name: own[0]?.name ?? "", path: "" } }}
      flash={extra.flash ?? flashOf(c)}
      confirm={confirm}
    />,
  );
  return c.html(html, status as 200);
}

/** What the redirect after an act says happened (the acts name it in the query). */
function flashOf(c: AppContext): string | undefined {
  const q = (k: string) => c.req.query(k);
  if (q("published")) return `Published ${q("published")}.`;
  if (q("unpublished")) return `Unpublished ${q("unpublished")}: it answers 404 from now on.`;
  if (q("enabled")) return `Enabled ${q("enabled")}: it serves again.`;
  if (q("disabled")) return `Disabled ${q("disabled")}: it answers 404 until enabled.`;
  if (q("bound")) return `Bound ${q("bound")} to ${q("node") ?? "?"}.`;
  if (q("unbound")) return `Unbound ${q("unbound")} from ${q("node") ?? "?"}.`;
  return undefined;
}

export function endpointPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/endpoints",
      summary: "Published endpoints of this workspace, their acts, and your endpoint keys",
      // The same row as GET /api/v1/endpoints, so the page refuses whom the API refuses.
      access: "endpoints.manage",
      page: { defaultLimit: ROWS, maxLimit: ROWS },
      errors: ["endpoint.not_found", "endpoint.validation.path_invalid"],
    }),
    (c, { actor, workspace, page }) => endpointsPage(c, deps, { actor, workspace, page }),
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/endpoints/view",
      summary: "One published endpoint: what it runs, who may call it, and its try-it panel",
      access: "endpoints.manage",
      query: z.object({
        path: z.string().min(1).max(300),
        confirm: z.literal("unpublish").optional(),
      }),
      errors: ["endpoint.not_found", "endpoint.validation.path_invalid"],
    }),
    async (c, { actor, workspace, query }) => {
      const at = { actor, workspaceId: workspace.id };
      const [ctx, view, keys] = await Promise.all([
        shellContext(c, deps, actor),
        deps.publishing.endpoints.get(at, query.path),
        liveKeysHere(deps, actor, workspace),
      ]);
      const [summary] = await summaries(deps, at, [view]);
      const [names, release] = await Promise.all([
        userNames(deps, [view.created_by]),
        summary.release === null ? undefined : deps.content.pipelines
          .getVersion(workspace.id, view.pipeline_id, summary.release)
          .catch(() => undefined),
      ]);
      const mints = rolesHeld(workspace.flags, actor.isSuperAdmin).includes("author");
      // A key made in the panel shows its secret in this page: no cache or back button keeps it.
      c.header("Cache-Control", "no-store");
      const here = ctx.workspaces.filter((w) => w.name === workspace.name);
      return c.html(renderPage(
        <EndpointPage
          ctx={ctx}
          origin={deps.platform.origin()}
          endpoint={{
            ...summary,
            created_at: view.created_at,
            created_by_name: view.created_by === actor.userId
              ? "you"
              : names.get(view.created_by) ?? "someone",
          }}
          tryPanel={{
            parameters: ((release as { parameters?: Record<string, ParameterView> } | undefined)
              ?.parameters) ?? {},
            keys: keysReaching(keys, view),
            keyForm: mints && here.length > 0
              ? {
                csrf: ctx.csrf,
                kinds: ["user", "endpoint"],
                workspaces: here,
                draft: {
                  name: `try ${view.path_pattern}`,
                  kind: "user",
                  scope: "execute",
                  workspace: workspace.name,
                  expires_in: "7d",
                  expires_at: "",
                  bindings: "",
                },
              }
              : null,
          }}
          flash={flashOf(c)}
          confirm={query.confirm === "unpublish"}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/partials/endpoints/result/:id",
      summary: "The first rows of a run an endpoint call started, for the try-it panel",
      access: "results.read",
      params: z.object({ id: z.uuid() }),
      errors: ["result.execution_not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const caller = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
      try {
        const { result, rows } = await deps.runs.executions.page(
          caller,
          workspace.id,
          params.id,
          0,
          TRY_ROWS,
        );
        return c.html(renderToString(
          <div class="try-result">
            <ResultTable
              page={{
                execution_id: params.id,
                schema: result.schema,
                rows,
                offset: 0,
                limit: TRY_ROWS,
                total_rows: result.row_count,
                expires_at: result.expires_at,
              }}
            />
            <p class="muted small">
              {result.row_count > rows.length
                ? `The first ${rows.length} of ${result.row_count} rows. `
                : ""}
              <a href={`/runs/${params.id}`}>Open the run</a>
            </p>
          </div>,
        ));
      } catch (e) {
        // An expired or absent result is a state the panel explains, not an error.
        if (e instanceof AppError && e.code.startsWith("result.") && e.status !== 404) {
          return c.html(renderToString(<p class="muted">{e.userMessage}</p>));
        }
        throw e;
      }
    },
  );
}
