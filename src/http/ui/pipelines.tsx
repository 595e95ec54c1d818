/** The pipeline pages: the folder tree with search, and one pipeline's working version. */
import { z } from "zod";
import { type PipelineNodeView, PipelinePage } from "../../../ui/pages/pipeline.tsx";
import { lineDiff } from "../../../ui/components/line_diff.ts";
import { type ParameterChange, PipelineComparePage } from "../../../ui/pages/pipeline_compare.tsx";
import { specOf } from "./pipeline_editor.tsx";
import { servedAmong } from "../../endpoints/mod.ts";
import type { PipelineGuard } from "../../../ui/components/version_guard.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Principal } from "../../identity/mod.ts";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import { folderListRoute } from "./folder_route.tsx";
import { allows, pageRoute, shellContext, type UiPageDeps, versionRows } from "./shell.ts";

/** What each page of one pipeline starts from: the shell, the working version, every version. */
function pipelineBasics(
  c: AppContext,
  deps: UiPageDeps,
  actor: Principal,
  workspaceId: string,
  id: string,
) {
  return Promise.all([
    shellContext(c, deps, actor),
    deps.content.pipelines.get(workspaceId, id),
    deps.content.pipelines.versions(workspaceId, id),
  ]);
}

export function pipelinePageRoutes(router: Router, deps: UiPageDeps): void {
  folderListRoute(router, deps, {
    nav: "pipelines",
    noun: "pipeline",
    title: "Pipelines",
    lead: "DAGs of SQL that read, stage and deliver one result.",
    newHref: "/pipelines/new",
    search: (workspaceId, q, page) => deps.content.pipelines.list(workspaceId, { q }, page),
    level: (workspaceId, prefix, page) => deps.content.pipelines.folder(workspaceId, prefix, page),
    entry: (x) => ({
      href: `/pipelines/${x.id}`,
      title: x.display_name ?? x.name.slice(x.name.lastIndexOf("/") + 1),
      path: x.name,
      status: x.status,
      current_version: x.current_version,
      updated_at: x.updated_at,
    }),
  });

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id",
      summary: "A pipeline: graph, parameters, nodes and versions",
      access: "content.read",
      params: z.object({ id: z.uuid() }),
      query: z.object({
        saved: z.string().max(4).optional(),
        released: z.coerce.number().int().optional(),
        discarded: z.string().max(4).optional(),
        moved: z.string().max(40).optional(),
        error: z.string().max(400).optional(),
        confirm: z.string().regex(/^(release|discard-draft|(discard|restore|current)-\d{1,9})$/)
          .optional(),
      }),
      errors: ["pipeline.not_found"],
    }),
    async (c, { actor, workspace, params, query }) => {
      const workspaceId = workspace.id;
      const [ctx, view, versions] = await pipelineBasics(c, deps, actor, workspaceId, params.id);
      // deno-lint-ignore no-explicit-any
      const pipeline = view as any;
      const nodes: PipelineNodeView[] = await Promise.all(
        (pipeline.nodes ?? []).map(async (n: PipelineNodeView) => {
          if (n.pipeline) {
            // The child's name, not its id: "Runs Top customers (report)".
            // deno-lint-ignore no-explicit-any
            const child: any = await deps.content.pipelines.get(workspaceId, n.pipeline.id)
              .catch(() => undefined);
            return child ? { ...n, pipeline_title: child.display_name ?? child.name } : n;
          }
          if (!n.template) return n;
          const t = await deps.content.templates.getVersion(
            workspaceId,
            n.template.id,
            n.template.version,
          )
            .catch(() => undefined);
          return { ...n, template_body: t?.body };
        }),
      );
      const can = {
        execute: allows({ actor, workspace }, "pipelines.execute"),
        author: allows({ actor, workspace }, "content.write"),
        release: allows({ actor, workspace }, "versions.release"),
        restore: allows({ actor, workspace }, "content.write_session"),
        switch: allows({ actor, workspace }, "versions.switch"),
      };
      // Publishing is endpoint management: drawn only for whom that row allows.
      const publishing = allows({ actor, workspace }, "endpoints.manage")
        ? {
          released: servedAmong(versions) !== undefined,
          endpoints: await deps.publishing.endpoints.overPipeline(
            { actor, workspaceId },
            params.id,
          ),
        }
        : undefined;
      const guard = query.confirm
        ? await guardOf(deps, { actor, workspaceId }, pipeline, versions, can, query.confirm)
        : undefined;
      return c.html(renderPage(
        <PipelinePage
          ctx={ctx}
          now={new Date()}
          guard={guard}
          promote={allows({ actor, workspace }, "promotion.promote") &&
            deps.publishing.promotionSender.configured}
          publishing={publishing}
          pipeline={{ ...pipeline, nodes }}
          versions={await versionRows(deps, versions)}
          can={can}
          flash={{
            saved: query.saved !== undefined,
            released: query.released,
            discarded: query.discarded !== undefined,
            moved: query.moved,
            error: query.error,
          }}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id/compare",
      summary: "What changed between two versions: parameters and the body",
      access: "content.read",
      params: z.object({ id: z.uuid() }),
      query: z.object({
        from: z.coerce.number().int().min(1).optional(),
        to: z.coerce.number().int().min(1).optional(),
      }),
      errors: ["pipeline.not_found", "pipeline.execution.not_found"],
    }),
    async (c, { actor, workspace, params, query }) => {
      const workspaceId = workspace.id;
      const [ctx, working, versions] = await pipelineBasics(c, deps, actor, workspaceId, params.id);
      const numbers = versions.map((v) => v.version);
      // deno-lint-ignore no-explicit-any
      const w = working as any;
      const to = query.to ?? w.version;
      const from = query.from ??
        (w.current_version !== null && w.current_version !== to
          ? w.current_version
          : numbers.filter((n) => n < to).at(-1) ?? to);
      // deno-lint-ignore no-explicit-any
      const [a, b]: any[] = await Promise.all([
        deps.content.pipelines.getVersion(workspaceId, params.id, from),
        deps.content.pipelines.getVersion(workspaceId, params.id, to),
      ]);
      return c.html(renderPage(
        <PipelineComparePage
          ctx={ctx}
          pipeline={{ id: params.id, name: b.name }}
          from={from}
          to={to}
          versions={numbers}
          parameters={parameterChanges(a.parameters ?? {}, b.parameters ?? {})}
          diff={lineDiff(compareText(a), compareText(b))}
        />,
      ));
    },
  );
}

/** Declared parameters added, removed or changed between two versions (derived ones aside). */
function parameterChanges(
  before: Record<string, { derived?: boolean }>,
  after: Record<string, { derived?: boolean }>,
): ParameterChange[] {
  const text = (d: unknown) => JSON.stringify(d);
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names.flatMap((name): ParameterChange[] => {
    const x = before[name]?.derived ? undefined : before[name];
    const y = after[name]?.derived ? undefined : after[name];
    if (x && !y) return [{ name, change: "removed", before: text(x) }];
    if (!x && y) return [{ name, change: "added", after: text(y) }];
    if (x && y && text(x) !== text(y)) {
      return [{ name, change: "changed", before: text(x), after: text(y) }];
    }
    return [];
  });
}

/** What a version comparison reads: the names people see, then the editable spec. */
// deno-lint-ignore no-explicit-any
function compareText(view: any): string {
  const head = JSON.stringify(
    { display_name: view.display_name ?? null, description: view.description ?? null },
    null,
    2,
  );
  return `${head}\n${specOf(view)}`;
}

/**
 * The act `?confirm=` names, if the viewer may do it on this version, with the endpoints over the
 * pipeline and the release they serve before and after it, by the rule serving follows.
 */
async function guardOf(
  deps: UiPageDeps,
  at: { actor: Principal; workspaceId: string },
  // deno-lint-ignore no-explicit-any
  pipeline: any,
  versions: { version: number; status: string }[],
  can: { author: boolean; release: boolean; restore: boolean; switch: boolean },
  confirm: string,
): Promise<PipelineGuard | undefined> {
  const [act, n] = confirm.split("-") as [PipelineGuard["act"] | "discard", string | undefined];
  const kind: PipelineGuard["act"] = confirm === "discard-draft" ? "discard-draft" : act;
  const version = kind === "release" || kind === "discard-draft" ? pipeline.version : Number(n);
  const status = versions.find((v) => v.version === version)?.status;
  const allowed = {
    "release": can.release && status === "DRAFT",
    "discard-draft": can.author && status === "DRAFT",
    "discard": can.restore && status === "RELEASED",
    "restore": can.restore && status === "DISCARDED",
    "current": can.switch && status === "RELEASED" && version !== pipeline.current_version,
  }[kind];
  if (!allowed) return undefined;
  const after = kind === "release" || kind === "restore"
    ? "RELEASED"
    : kind === "discard"
    ? "DISCARDED"
    : undefined;
  const moved = versions.map((v) => v.version === version && after ? { ...v, status: after } : v);
  const endpoints = await deps.publishing.endpoints.overPipeline(at, pipeline.id);
  return {
    act: kind,
    version,
    current: pipeline.current_version,
    body_hash: pipeline.body_hash,
    served: {
      before: servedAmong(versions)?.version ?? null,
      after: servedAmong(moved)?.version ?? null,
    },
    endpoints,
  };
}
