/**
 * Promotion over HTTP (docs/promotion.md). The receiver routes (inventory, push) are opened only by
 * the promotion key gate (step 3 of the pipeline), so they declare no matrix operation; the sender
 * routes (promote, preview) are judged as `promotion.promote` (author scope, promote role).
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import {
  inventoryView,
  previewView,
  promoteContext,
  promoteResultView,
  PROMOTION_SENDER_ERRORS,
  pushResultView,
} from "../../promotion/mod.ts";
import type { Services } from "../../services.ts";
import type { AppContext } from "../context.ts";
import { ok } from "../envelope.ts";
import type { Router } from "../routing.ts";

type Deps = Pick<Services, "publishing">;

const flag = z.enum(["true", "false"]).transform((v) => v === "true");

/** The gate put the caller there; a route reached any other way is refused the same way. */
function caller(c: AppContext) {
  const who = c.get("promotionCaller");
  if (!who) throw new AppError("auth.promotion.key_invalid", {});
  return who;
}

export function registerRoutes(router: Router, deps: Deps): void {
  const { promotionReceiver: receiver, promotionSender: sender } = deps.publishing;

  router.add({
    method: "get",
    path: "/api/v1/promotion/inventory",
    tag: "promotion",
    summary: "Receiver: released pipelines, templates and datasources of a workspace (server key)",
    access: "public",
    promotionReceiver: true,
    query: z.object({ workspace: z.string().min(1).max(200) }),
    response: inventoryView,
    errors: ["auth.promotion.key_invalid", "workspace.not_found"],
  }, async (c, { query }) => {
    caller(c);
    return ok(c, await receiver.inventory(query.workspace));
  });

  router.add({
    method: "post",
    path: "/api/v1/promotion/push",
    tag: "promotion",
    summary: "Receiver: apply a batch of released versions in one transaction (server key)",
    access: "public",
    promotionReceiver: true,
    body: z.unknown(),
    response: pushResultView,
    errors: [
      "auth.promotion.key_invalid",
      "workspace.not_found",
      "pipeline.import.missing_datasource",
      "pipeline.import.missing_template",
      "pipeline.import.hash_mismatch",
      "pipeline.import.version_conflict",
      "endpoint.promotion.key_missing",
      "endpoint.path_conflict",
    ],
  }, async (c, { body }) => ok(c, await receiver.push(caller(c), body)));

  router.add({
    method: "post",
    path: "/api/v1/promotion/promote",
    tag: "promotion",
    summary: "Push a pipeline's current release (and its closure) to the configured target",
    access: "promotion.promote",
    body: z.object({
      pipeline_id: z.string().min(1).max(200),
      include_templates: z.boolean().optional(),
    }),
    response: promoteResultView,
    errors: [...PROMOTION_SENDER_ERRORS],
  }, async (c, { actor, workspace, body }) =>
    ok(
      c,
      await sender.promote(
        promoteContext(actor, workspace),
        body.pipeline_id,
        body.include_templates,
      ),
    ));

  router.add({
    method: "get",
    path: "/api/v1/promotion/preview",
    tag: "promotion",
    summary: "What a promotion would change on the target, with breaking changes flagged",
    access: "promotion.promote",
    query: z.object({
      pipeline_id: z.string().min(1).max(200),
      include_templates: flag.optional(),
    }),
    response: previewView,
    errors: [...PROMOTION_SENDER_ERRORS],
  }, async (c, { actor, workspace, query }) =>
    ok(
      c,
      await sender.preview(
        promoteContext(actor, workspace),
        query.pipeline_id,
        query.include_templates,
      ),
    ));
}
