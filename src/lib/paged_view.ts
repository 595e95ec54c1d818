/**
 * The paged list shape every list answers, REST `data` and tool output alike (docs/http.md):
 * `{items, pagination: {offset, limit, total, has_more}}`.
 */
import { z } from "zod";

export const pagination = z.object({
  offset: z.int(),
  limit: z.int(),
  total: z.int(),
  has_more: z.boolean(),
});

/** Which slice of a list a caller asks for. */
export interface Page {
  offset: number;
  limit: number;
}

/** One page of a list and how many the whole list holds, before `pageOf` shapes it. */
export interface Counted<T> {
  items: T[];
  total: number;
}

/** `{items, pagination}` around an item schema. */
export function pagedView<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), pagination });
}

/** The paged answer for `items` of `total` at `page`. */
export function pageOf<T>(items: T[], page: Page, total: number) {
  return { items, pagination: { ...page, total, has_more: page.offset + items.length < total } };
}
