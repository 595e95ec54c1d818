/**
 * The published-endpoints page: the workspace's endpoints as the management API lists them, with
 * the call a program makes. Read-only; publishing stays an API act (docs/endpoints.md).
 */
import { EndpointsPage } from "../../../ui/pages/endpoints.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const ROWS = 50;

export function endpointPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/endpoints",
      summary: "Published endpoints of this workspace",
      // The same row as GET /api/v1/endpoints, so the page refuses whom the API refuses.
      access: "endpoints.manage",
      page: { defaultLimit: ROWS, maxLimit: ROWS },
    }),
    async (c, { actor, workspace, page }) => {
      const at = { actor, workspaceId: workspace.id };
      const [ctx, listing] = await Promise.all([
        shellContext(c, deps, actor),
        deps.endpoints.list(at, page),
      ]);
      // One read per distinct pipeline, by the rule serving follows.
      const ids = [...new Set(listing.items.map((e) => e.pipeline_id))];
      const releases = new Map(
        await Promise.all(
          ids.map(async (id) => [id, await deps.endpoints.servedRelease(at, id)] as const),
        ),
      );
      return c.html(renderPage(
        <EndpointsPage
          ctx={ctx}
          origin={deps.origin()}
          endpoints={listing.items.map((e) => ({
            path_pattern: e.path_pattern,
            pipeline_id: e.pipeline_id,
            pipeline_name: e.pipeline_name,
            release: releases.get(e.pipeline_id) ?? null,
            enabled: e.enabled,
            timeout_seconds: e.timeout_seconds,
            description: e.description,
            keys_bound: new Set(e.bindings.map((b) => b.key_id)).size,
          }))}
          offset={page.offset}
          limit={page.limit}
          total={listing.total}
        />,
      ));
    },
  );
}
