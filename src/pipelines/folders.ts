/**
 * One level of the pipeline folder tree (spec 2 §4.1 `GET /pipelines?prefix=`): sub-folders by
 * segment, then the pipelines directly in it by name; `offset`/`limit` page over that sequence and
 * `total` counts all of it, the way the template folders do.
 */
import { folderLevelPage } from "../lib/folder_path.ts";
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
  const level = folderLevelPage(prefix, names, page);
  return {
    prefix,
    folders: level.folders.map((f) => ({
      path: f.path,
      segment: f.segment,
      pipeline_count: f.count,
    })),
    pipelines: await rows(level.leaves),
    total: level.total,
    has_more: level.has_more,
  };
}
