/**
 * One page schema and one clamp for every paged list (`offset`, `limit`; a missing limit takes the
 * default, a larger one is clamped to the maximum rather than refused).
 */
import { z } from "zod";

export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

export interface Page {
  offset: number;
  limit: number;
}

export const pageQuery = z.object({
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).optional(),
});

export function clampPage(q: { offset?: number; limit?: number }, limits: PageLimits): Page {
  return {
    offset: q.offset ?? 0,
    limit: Math.min(q.limit ?? limits.defaultLimit, limits.maxLimit),
  };
}
