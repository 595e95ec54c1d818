/**
 * Template reads the shared version repository does not cover: the paged list, the names of one
 * folder subtree, and the workspace's template count. The working version of a row is its draft,
 * else its current version, as for pipelines.
 */
import { likeLiteral } from "../lib/folder_path.ts";
import { toIso } from "../lib/time.ts";
import { Conditions, countOf, markers, type Queryable, readPage, type Row } from "../store/mod.ts";
import type { TemplateDialect } from "./render.ts";
import type { TemplateFilter, TemplateListRow, TemplateType } from "./types.ts";
import type { Counted, Page } from "../lib/paged_view.ts";

const LIST_COLUMNS = `t.name, t.type, t.dialect, t.display_name, t.description, t.current_version,
  t.owner_id, t.created_at, t.updated_at, d.version AS draft_version`;
const FROM = `FROM templates t
  LEFT JOIN template_versions d ON d.template_id = t.id AND d.status = 'DRAFT'`;

function where(workspaceId: string, filter: TemplateFilter, extra?: [string, string]) {
  const w = new Conditions().add("t.workspace_id = $?", workspaceId).addGiven({
    "t.dialect = $?": filter.dialect,
    "t.type = $?": filter.type,
  });
  if (filter.q) {
    w.add(
      "(LOWER(t.name) LIKE $? ESCAPE '\\' OR LOWER(t.display_name) LIKE $? ESCAPE '\\')",
      `%${likeLiteral(filter.q.toLowerCase())}%`,
    );
  }
  if (extra) w.add(...extra);
  return w;
}

function toRow(r: Row): TemplateListRow {
  const draft = r.draft_version === null || r.draft_version === undefined
    ? null
    : Number(r.draft_version);
  const current = r.current_version === null ? null : Number(r.current_version);
  const version = draft ?? current;
  return {
    id: String(r.name),
    type: String(r.type) as TemplateType,
    ...(r.dialect === null ? {} : { dialect: String(r.dialect) as TemplateDialect }),
    display_name: String(r.display_name),
    description: r.description === null ? null : String(r.description),
    version,
    status: draft !== null ? "DRAFT" : current !== null ? "RELEASED" : null,
    current_version: current,
    owner: String(r.owner_id),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
  };
}

/** One page of the workspace's templates by name, and the total matching. */
export function listTemplates(
  db: Queryable,
  workspaceId: string,
  filter: TemplateFilter,
  page: Page,
): Promise<Counted<TemplateListRow>> {
  const w = where(workspaceId, filter);
  return readPage(
    db,
    `SELECT COUNT(*) AS n FROM templates t WHERE ${w.sql}`,
    `SELECT ${LIST_COLUMNS} ${FROM} WHERE ${w.sql} ORDER BY t.name`,
    w.params,
    page,
    toRow,
  );
}

/** Every name under `prefix` (normalised; `` is the root) matching the filter. */
export async function namesUnder(
  db: Queryable,
  workspaceId: string,
  prefix: string,
  filter: TemplateFilter,
): Promise<string[]> {
  const w = where(
    workspaceId,
    { ...filter, q: undefined },
    prefix === "" ? undefined : ["t.name LIKE $? ESCAPE '\\'", `${likeLiteral(prefix)}/%`],
  );
  const rows = await db.query<{ name: string }>(
    `SELECT t.name FROM templates t WHERE ${w.sql} ORDER BY t.name`,
    w.params,
  );
  return rows.map((r) => String(r.name));
}

/** The list rows of the named templates, in the order given. */
export async function rowsByName(
  db: Queryable,
  workspaceId: string,
  names: readonly string[],
): Promise<TemplateListRow[]> {
  if (names.length === 0) return [];
  const rows = (await db.query(
    `SELECT ${LIST_COLUMNS} ${FROM}
     WHERE t.workspace_id = $1 AND t.name IN (${markers(names.length, 2)})`,
    [workspaceId, ...names],
  )).map(toRow);
  const byName = new Map(rows.map((r) => [r.id, r]));
  return names.map((n) => byName.get(n)!).filter(Boolean);
}

/** How many templates the workspace owns (blocks deleting it: `workspace.in_use`). */
export function countTemplates(db: Queryable, workspaceId: string): Promise<number> {
  return countOf(db, "SELECT COUNT(*) AS n FROM templates WHERE workspace_id = $1", [workspaceId]);
}
