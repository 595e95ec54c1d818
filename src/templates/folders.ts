/**
 * One level of the template folder tree (spec 2 §4.2 `GET /templates?prefix=`). The level is the
 * sub-folders (by segment) followed by the templates directly in it (by name); `offset`/`limit`
 * page over that sequence and `total` counts all of it, so a client pages a level like any list.
 */
import { folderLevelPage } from "../lib/folder_path.ts";
import type { TemplateFolderLevel, TemplateListRow } from "./types.ts";

export async function folderPage(
  prefix: string,
  names: readonly string[],
  page: { offset: number; limit: number },
  rows: (names: string[]) => Promise<TemplateListRow[]>,
): Promise<TemplateFolderLevel> {
  const level = folderLevelPage(prefix, names, page);
  return {
    prefix,
    folders: level.folders.map((f) => ({
      path: f.path,
      segment: f.segment,
      template_count: f.count,
    })),
    templates: await rows(level.leaves),
    total: level.total,
    has_more: level.has_more,
  };
}
