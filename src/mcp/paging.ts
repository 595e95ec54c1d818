/**
 * Paged lists as REST answers them (docs/http.md: `offset`, `limit`; a missing limit takes the
 * default, a larger one is clamped to the maximum): the arguments, the `{items, pagination}`
 * output and the clamp, for every list tool.
 */
import { z } from "zod";
import type { Services } from "../services.ts";

export const pageArgs = {
  offset: z.int().min(0).optional().describe(
    "Items to skip (default 0); the answer's pagination.has_more says whether to go on",
  ),
  limit: z.int().min(1).optional().describe(
    "Items per page (default service.paging.default-limit); a larger one is clamped to " +
      "service.paging.max-limit and pagination.limit says what was used",
  ),
};

/** The one paged shape (lib/paged_view.ts), the same as REST's `data`. */
export { pagedView as pagedOutput, pageOf as paged } from "../lib/paged_view.ts";
import { pageOf } from "../lib/paged_view.ts";

export function clampPage(
  services: Pick<Services, "settings">,
  a: { offset?: number; limit?: number },
): { offset: number; limit: number } {
  const { defaultLimit, maxLimit } = services.settings.paging;
  return { offset: a.offset ?? 0, limit: Math.min(a.limit ?? defaultLimit, maxLimit) };
}

/** A list tool's answer: the page its arguments ask for (clamped), read by `list`, paged. */
export async function listPage<T>(
  services: Pick<Services, "settings">,
  a: { offset?: number; limit?: number },
  list: (page: { offset: number; limit: number }) => Promise<{ items: T[]; total: number }>,
) {
  const page = clampPage(services, a);
  const { items, total } = await list(page);
  return pageOf(items, page, total);
}
