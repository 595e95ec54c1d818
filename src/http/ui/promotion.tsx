/**
 * Promotion in the browser (docs/promotion.md#from-the-browser): `/pipelines/{id}/promote` shows
 * what `GET /api/v1/promotion/preview` answers, and its Push posts
 * `/partials/pipelines/{id}/promote`, which does what `POST /api/v1/promotion/promote` does. Both
 * go through the one promotion sender and the same matrix row, so they refuse whom and what REST
 * refuses, with the same codes and statuses; a refusal is drawn on the page, on the entry it
 * concerns, instead of an envelope.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { promoteContext, PROMOTION_SENDER_ERRORS } from "../../promotion/mod.ts";
import { PromotePage, type PromotePageProps } from "../../../ui/pages/promote.tsx";
import type { RefusalView } from "../../../ui/components/promote_refusal.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import { formPost, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const id = z.object({ id: z.uuid() });

/** A refusal of the sender (or the target's, relayed), drawn on the page; anything else throws. */
function refusalOf(e: unknown): RefusalView {
  // The matrix and an unknown pipeline keep their own pages (403, 404), as everywhere else.
  if (
    !(e instanceof AppError) || e.status === 403 || e.code === "pipeline.not_found" ||
    (e.status >= 500 && e.code !== "pipeline.promotion.target_unreachable")
  ) throw e;
  return {
    code: e.code,
    status: e.status,
    message: e.message,
    userMessage: e.userMessage,
    details: e.details as Record<string, unknown>,
  };
}

export function promotionPageRoutes(router: Router, deps: UiPageDeps): void {
  const sender = deps.publishing.promotionSender;

  /** The page for `pipelineId` with what the act answered, at the act's status. */
  const answer = async (
    c: AppContext,
    at: { actor: Principal; workspace: WorkspaceContext },
    pipelineId: string,
    act: () => Promise<Pick<PromotePageProps, "preview" | "outcome">>,
    extra: { confirm?: boolean } = {},
  ) => {
    // First the pipeline, so one of another workspace is the 404 REST answers, before any call.
    const pipeline = await deps.content.pipelines.get(at.workspace.id, pipelineId);
    let shown: Pick<PromotePageProps, "preview" | "outcome" | "refusal">;
    try {
      shown = await act();
    } catch (e) {
      shown = { refusal: refusalOf(e) };
    }
    const ctx = await shellContext(c, deps, at.actor);
    // deno-lint-ignore no-explicit-any
    const p = pipeline as any;
    const html = renderPage(
      <PromotePage
        ctx={ctx}
        pipeline={{
          id: pipelineId,
          name: p.name,
          display_name: p.display_name ?? undefined,
          current_version: p.current_version,
        }}
        {...shown}
        confirm={extra.confirm}
      />,
    );
    return c.html(html, (shown.refusal?.status ?? 200) as 200);
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id/promote",
      summary: "What promoting the pipeline's current release would change on the target",
      access: "promotion.promote",
      params: id,
      query: z.object({ confirm: z.literal("push").optional() }),
      errors: [...PROMOTION_SENDER_ERRORS],
    }),
    (c, { actor, workspace, params, query }) =>
      answer(
        c,
        { actor, workspace },
        params.id,
        async () => ({
          preview: await sender.preview(promoteContext(actor, workspace), params.id),
        }),
        { confirm: query.confirm === "push" },
      ),
  );

  formPost(router, {
    path: "/partials/pipelines/:id/promote",
    summary: "Push the pipeline's current release (and its closure) to the target",
    access: "promotion.promote",
    params: id,
    errors: [...PROMOTION_SENDER_ERRORS],
  }, async (c, { actor, workspace, params }, f) => {
    // As REST's `include_templates`: absent is true.
    const includeTemplates = f.include_templates !== "false";
    return await answer(c, { actor, workspace }, params.id, async () => ({
      outcome: await sender.promote(promoteContext(actor, workspace), params.id, includeTemplates),
    }));
  });
}
