/** Shared helpers of the renderer's tests. */
import { AppError } from "../errors/mod.ts";
import type { Db } from "../store/mod.ts";
import type { OpContext } from "../versions/mod.ts";
import { addUser, addWorkspace } from "../versions/test_fixtures.ts";
import { TemplateService } from "./service.ts";
import type { CreateTemplateInput } from "./types.ts";
import {
  type ImportRef,
  type RenderedSql,
  type RenderRequest,
  renderTemplate,
  type ResolvedImport,
  type TemplateSource,
} from "./render.ts";

/** A template version as storage would hold it. */
export interface StoredTemplate extends TemplateSource {
  id: string;
  version: number;
}

/** An in-memory store of template versions and the loader reading it, counting its reads. */
export function library(templates: StoredTemplate[]) {
  const byKey = new Map(templates.map((t) => [`${t.id}@${t.version}`, t]));
  const reads: string[] = [];
  return {
    reads,
    /** `{alias, id, version, body, imports}` of a stored version, as the caller resolves pins. */
    resolve(alias: string, id: string, version: number): ResolvedImport {
      const t = byKey.get(`${id}@${version}`);
      if (!t) throw new Error(`no ${id}@${version} in the test library`);
      return { alias, id, version, body: t.body, imports: t.imports };
    },
    load(id: string, version: number): Promise<TemplateSource> {
      reads.push(`${id}@${version}`);
      const t = byKey.get(`${id}@${version}`);
      if (!t) {
        return Promise.reject(new AppError("request.not_found", { method: "GET", path: id }));
      }
      return Promise.resolve({ body: t.body, imports: t.imports });
    },
  };
}

export function pin(alias: string, id: string, version: number): ImportRef {
  return { alias, id, version };
}

/** Renders `body` as a POSTGRES template `test/t` version 1 with no imports unless given. */
export function render(
  body: string,
  params: Record<string, unknown> = {},
  extra: Partial<RenderRequest> = {},
): Promise<RenderedSql> {
  return renderTemplate({
    template: { id: "test/t", version: 1 },
    body,
    dialect: "POSTGRES",
    imports: [],
    params,
    ...extra,
  });
}

/** A template service on `db` with a workspace, a second workspace and an author acting in each. */
export async function setup(db: Db) {
  const svc = new TemplateService({ db, authoringEnabled: true });
  const workspaceId = await addWorkspace(db, `ws-${crypto.randomUUID().slice(0, 8)}`);
  const otherId = await addWorkspace(db, `other-${crypto.randomUUID().slice(0, 8)}`);
  const alice = await addUser(db, `alice-${crypto.randomUUID().slice(0, 8)}@x.example`);
  const ctx: OpContext = { actor: alice, workspaceId };
  const other: OpContext = { actor: alice, workspaceId: otherId };
  return { svc, workspaceId, otherId, alice, ctx, other };
}

/** A POSTGRES template creation body named `id`. */
export function sql(id: string, body = "SELECT 1", extra: Partial<CreateTemplateInput> = {}) {
  return { id, dialect: "POSTGRES", display_name: `T ${id}`, body, ...extra };
}

/** An html template's create input (html is stored as given, never rendered by the service). */
export function htmlTemplate(id: string, body = "<p/>", display_name = id) {
  return { id, type: "html" as const, display_name, body };
}

/**
 * One filter call over four million items: liquidjs checks its time limit only between tags, so
 * in process this held the thread for about 12 s even with `max_time_ms: 20`.
 */
export const UNCOOPERATIVE =
  "{% assign r = (1..4000000) | where_exp: 'x', 'x > 1' %}{{ r | size }}";
