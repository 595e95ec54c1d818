/**
 * The lifecycle fields every versioned read carries, as the zod schemas the pipeline and template
 * views are built from: the status, the `draft` pointer, a version's metadata row.
 */
import { z } from "zod";

export const versionStatusView = z.enum(["DRAFT", "RELEASED", "DISCARDED"]);

/** `draft`: the open draft of an entity, or null. */
export const draftPointerView = z.object({
  version: z.int(),
  body_hash: z.string(),
  updated_by: z.string(),
  updated_at: z.string(),
}).nullable();

/** One row of a version listing: the lifecycle stamps without the body. */
export const versionMetaView = z.object({
  version: z.int(),
  status: versionStatusView,
  body_hash: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  updated_by: z.string(),
  updated_at: z.string(),
  released_by: z.string().nullable(),
  released_at: z.string().nullable(),
  discarded_by: z.string().nullable(),
  discarded_at: z.string().nullable(),
}).meta({ id: "VersionMeta" });

/**
 * One level of a folder tree of versioned entities: its sub-folders, each with how many entities
 * it holds under `count`, and this level's rows under `items`.
 */
export function folderLevelView<Count extends string, Items extends string, Row extends z.ZodType>(
  count: Count,
  items: Items,
  row: Row,
) {
  return z.object({
    prefix: z.string(),
    folders: z.array(z.object({
      path: z.string(),
      segment: z.string(),
      ...{ [count]: z.int() } as Record<Count, z.ZodInt>,
    })),
    ...{ [items]: z.array(row) } as Record<Items, z.ZodArray<Row>>,
    total: z.int(),
    has_more: z.boolean(),
  });
}
