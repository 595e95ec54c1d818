/**
 * Promotion (docs/promotion.md): the receiver (inventory and push, behind the server-key gate) and
 * the sender (promote and preview, through the operation matrix) of released content between a
 * development and a hardened production deployment.
 */
export { keyFingerprint, type PromotionCaller, PromotionKeys } from "./keys.ts";
export { PromotionReceiver, type PromotionReceiverOptions } from "./receiver.ts";
export {
  type PromoteContext,
  promoteContext,
  PROMOTION_SENDER_ERRORS,
  PromotionSender,
  type PromotionSenderOptions,
  type PromotionTarget,
} from "./sender.ts";
export {
  type Inventory,
  inventoryView,
  type PipelinePreview,
  type PreviewResult,
  previewView,
  type PromoteChanges,
  type PromoteResult,
  promoteResultView,
  type PushResult,
  pushResultView,
} from "./views.ts";
