/**
 * One level of the pipeline folder tree (spec 2 §4.1 `GET /pipelines?prefix=`): sub-folders by
 * segment, then the pipelines directly in it by name; `offset`/`limit` page over that sequence and
 * `total` counts all of it, the way the template folders do.
 */
import { folderLevel } from "../lib/folder_path.ts";
import type { PipelineListRow } from "./repo.ts";

export interface PipelineFolderLevel {
  prefix: string;
  folders: { path: string; segment: string; pipeline_count: number }[];
  pipelines: PipelineListRow[];
  total: number;
  has_more: boolean;
}

export async function folderPage(
  prefix: string,
  names: readonly string[],
  page: { offset: number; limit: number },
  rows: (names: string[]) => Promise<PipelineListRow[]>,
): Promise<PipelineFolderLevel> {
  const level = folderLevel(prefix, names);
  const total = level.folders.length + level.leaves.length;
  const end = Math.min(page.offset + page.limit, total);
  const folders = level.folders.slice(page.offset, end);
  const leafStart = Math.max(0, page.offset - level.folders.length);
  const leafEnd = Math.max(0, end - level.folders.length);
  return {
    prefix,
    folders: folders.map((f) => ({ path: f.path, segment: f.segment, pipeline_count: f.count })),
    pipelines: await rows(level.leaves.slice(leafStart, leafEnd)),
    total,
    has_more: end < total,
  };
}
