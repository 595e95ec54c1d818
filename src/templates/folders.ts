/**
 * One level of the template folder tree (spec 2 §4.2 `GET /templates?prefix=`). The level is the
 * sub-folders (by segment) followed by the templates directly in it (by name); `offset`/`limit`
 * page over that sequence and `total` counts all of it, so a client pages a level like any list.
 */
import { folderLevel } from "../lib/folder_path.ts";
import type { TemplateFolderLevel, TemplateListRow } from "./types.ts";

export async function folderPage(
  prefix: string,
  names: readonly string[],
  page: { offset: number; limit: number },
  rows: (names: string[]) => Promise<TemplateListRow[]>,
): Promise<TemplateFolderLevel> {
  const level = folderLevel(prefix, names);
  const total = level.folders.length + level.leaves.length;
  const end = Math.min(page.offset + page.limit, total);
  const folders = level.folders.slice(page.offset, end);
  const leafStart = Math.max(0, page.offset - level.folders.length);
  const leafEnd = Math.max(0, end - level.folders.length);
  return {
    prefix,
    folders: folders.map((f) => ({ path: f.path, segment: f.segment, template_count: f.count })),
    templates: await rows(level.leaves.slice(leafStart, leafEnd)),
    total,
    has_more: end < total,
  };
}
