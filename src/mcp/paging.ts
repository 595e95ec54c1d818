/**
 * Paged lists as REST answers them (spec 2 §4: `offset`, `limit`; a missing limit takes the
 * default, a larger one is clamped to the maximum): the arguments, the `{items, pagination}`
 * output and the clamp, for every list tool.
 */
import { z } from "zod";
import type { Services } from "../services.ts";

export const pageArgs = {
  offset: z.int().min(0).optional(),
  limit: z.int().min(1).optional().describe("Clamped to the instance's page cap"),
};

/** The one paged shape (lib/paged_view.ts), the same as REST's `data`. */
export { pagedView as pagedOutput, pageOf as paged } from "../lib/paged_view.ts";

export function clampPage(
  services: Pick<Services, "config">,
  a: { offset?: number; limit?: number },
): { offset: number; limit: number } {
  const { defaultLimit, maxLimit } = services.config.paging;
  return { offset: a.offset ?? 0, limit: Math.min(a.limit ?? defaultLimit, maxLimit) };
}
