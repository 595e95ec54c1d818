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

export const pagination = z.object({
  offset: z.int(),
  limit: z.int(),
  total: z.int(),
  has_more: z.boolean(),
});

/** `{items, pagination}` around an item schema. */
export function pagedOutput<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), pagination });
}

export function clampPage(
  services: Pick<Services, "config">,
  a: { offset?: number; limit?: number },
): { offset: number; limit: number } {
  const { defaultLimit, maxLimit } = services.config.paging;
  return { offset: a.offset ?? 0, limit: Math.min(a.limit ?? defaultLimit, maxLimit) };
}

/** The paged answer for `items` of `total` at `page`. */
export function paged<T>(items: T[], page: { offset: number; limit: number }, total: number) {
  return { items, pagination: { ...page, total, has_more: page.offset + items.length < total } };
}
