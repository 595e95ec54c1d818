/**
 * Folder-path names (docs/authoring.md#authoring-templates): pipelines and templates share one
 * grammar — 2 to 10 segments joined by `/`, each `[a-z0-9][a-z0-9_.-]{0,63}`, at most 200
 * characters. Folders are virtual: a folder exists while some name lies under it. This module holds
 * the grammar and the one-level folder view both listings use, so the two kinds cannot drift apart.
 */
import type { Page } from "./paged_view.ts";

export const FOLDER_SEGMENT_RE = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
export const FOLDER_PATH_MAX = 200;
export const FOLDER_SEGMENTS_MIN = 2;
export const FOLDER_SEGMENTS_MAX = 10;

/**
 * Why `name` is not a folder path, or null when it is. `folder_required` only when the sole defect
 * is a missing folder (one well-formed segment); everything else is `grammar`, with a reason.
 */
export function folderPathDefect(
  name: string,
): { reason: "folder_required" | "grammar"; detail: string } | null {
  if (name.length > FOLDER_PATH_MAX) {
    return { reason: "grammar", detail: `longer than ${FOLDER_PATH_MAX} characters` };
  }
  const segments = name.split("/");
  const bad = segments.findIndex((s) => !FOLDER_SEGMENT_RE.test(s));
  if (bad >= 0) {
    return {
      reason: "grammar",
      detail: segments[bad] === ""
        ? `segment ${bad + 1} is empty`
        : `segment ${bad + 1} does not match ${FOLDER_SEGMENT_RE.source}`,
    };
  }
  if (segments.length < FOLDER_SEGMENTS_MIN) {
    return { reason: "folder_required", detail: "a name needs at least one folder: folder/name" };
  }
  if (segments.length > FOLDER_SEGMENTS_MAX) {
    return { reason: "grammar", detail: `more than ${FOLDER_SEGMENTS_MAX} segments` };
  }
  return null;
}

/** A prefix as callers send it (`a/b`, `a/b/`, `` for the root), without its trailing slash. */
export function normalisePrefix(prefix: string): string {
  return prefix.replace(/\/+$/, "");
}

/** One sub-folder of a level: its full path, its last segment and how many names lie under it. */
export interface FolderRow {
  path: string;
  segment: string;
  count: number;
}

/**
 * Splits the names under `prefix` (normalised) into the sub-folders and the names directly at
 * that level, both sorted. Names outside the prefix are ignored.
 */
export function folderLevel(
  prefix: string,
  names: readonly string[],
): { folders: FolderRow[]; leaves: string[] } {
  const head = prefix === "" ? "" : `${prefix}/`;
  const folders = new Map<string, FolderRow>();
  const leaves: string[] = [];
  for (const name of names) {
    if (!name.startsWith(head)) continue;
    const rest = name.slice(head.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      leaves.push(name);
      continue;
    }
    const segment = rest.slice(0, slash);
    const row = folders.get(segment) ?? { path: head + segment, segment, count: 0 };
    row.count++;
    folders.set(segment, row);
  }
  const bySegment = [...folders.values()].sort((a, b) => (a.segment < b.segment ? -1 : 1));
  return { folders: bySegment, leaves: leaves.sort() };
}

/**
 * One page of a level: sub-folders first, then the names directly in it; `offset`/`limit` page
 * over that sequence and `total` counts all of it, so a client pages a level like any list.
 */
export function folderLevelPage(
  prefix: string,
  names: readonly string[],
  page: Page,
): { folders: FolderRow[]; leaves: string[]; total: number; has_more: boolean } {
  const level = folderLevel(prefix, names);
  const total = level.folders.length + level.leaves.length;
  const end = Math.min(page.offset + page.limit, total);
  const leafStart = Math.max(0, page.offset - level.folders.length);
  const leafEnd = Math.max(0, end - level.folders.length);
  return {
    folders: level.folders.slice(page.offset, end),
    leaves: level.leaves.slice(leafStart, leafEnd),
    total,
    has_more: end < total,
  };
}

/** A level as the API answers it: sub-folders counting `{noun}_count`, then the `{noun}s` in it. */
export type FolderLevelAnswer<N extends string, Row> =
  & {
    prefix: string;
    folders: ({ path: string; segment: string } & Record<`${N}_count`, number>)[];
  }
  & Record<`${N}s`, Row[]>
  & { total: number; has_more: boolean };

/**
 * One level of a folder tree of `noun`s (`GET /pipelines?prefix=`, `GET /templates?prefix=`), paged
 * as `folderLevelPage` pages it; `rows` reads the entries directly in it by name.
 */
export async function folderLevelAnswer<N extends string, Row>(
  noun: N,
  prefix: string,
  names: readonly string[],
  page: Page,
  rows: (names: string[]) => Promise<Row[]>,
): Promise<FolderLevelAnswer<N, Row>> {
  const level = folderLevelPage(prefix, names, page);
  return {
    prefix,
    folders: level.folders.map((f) => ({
      path: f.path,
      segment: f.segment,
      [`${noun}_count`]: f.count,
    })),
    [`${noun}s`]: await rows(level.leaves),
    total: level.total,
    has_more: level.has_more,
  } as FolderLevelAnswer<N, Row>;
}

/** `LIKE` pattern text for a literal (with `ESCAPE '\'`): `%`, `_` and `\` match themselves. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
