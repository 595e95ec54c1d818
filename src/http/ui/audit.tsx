/**
 * The audit log page: `GET /api/v1/audit` for people. It reads through the same `auditTrail` the
 * REST route does (so a workspace admin sees their workspace's rows and a super admin the whole
 * instance or one workspace), then names the actors and links each row's subjects that the
 * viewer could open.
 */
import { z } from "zod";
import { type AuditRecord, KNOWN_AUDIT_EVENTS } from "../../audit/mod.ts";
import { AppError } from "../../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { AuditPage, type AuditRowView, type AuditSubject } from "../../../ui/pages/audit.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { allows, dayBound, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const ROWS = 25;
/** How many people the actor filter lists; beyond that a trail is narrowed by event or day. */
const PEOPLE = 200;

interface Person {
  name: string;
  email: string;
}

/** Users by id, as the actor column and the user subjects show them; unknown ids stay out. */
async function peopleById(deps: UiPageDeps, ids: Iterable<string>): Promise<Map<string, Person>> {
  const unique = [...new Set(ids)];
  const found = await Promise.all(
    unique.map((id) => deps.identity.users.get(id).catch(() => undefined)),
  );
  const people = new Map<string, Person>();
  found.forEach((u, i) => {
    if (u) people.set(unique[i], { name: u.display_name ?? u.email, email: u.email });
  });
  return people;
}

const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.length > 0 ? v : undefined;

/** What a row's details name, before any is checked for a link. */
function subjectsOf(r: AuditRecord): { kind: AuditSubject["kind"]; id: string }[] {
  const d = r.details;
  const found: { kind: AuditSubject["kind"]; id: string | undefined }[] = [
    { kind: "pipeline", id: text(d.pipeline_id) },
    { kind: "template", id: text(d.template_id) },
    { kind: "execution", id: text(d.execution_id) },
    { kind: "endpoint", id: text(d.path_pattern) ?? text(d.endpoint) },
    { kind: "key", id: text(d.key_id) },
    { kind: "user", id: text(d.target_user_id) ?? text(d.owner_id) },
  ];
  return found.filter((s): s is { kind: AuditSubject["kind"]; id: string } => s.id !== undefined);
}

/**
 * Links for the subjects the viewer could open: only in the active workspace (every page reads
 * that one), only what still exists, and a run only when its history would show it to them.
 * Keys and users have no page of their own yet, so they are named, not linked.
 */
function linker(deps: UiPageDeps, actor: Principal, workspace: WorkspaceContext | null) {
  const seen = new Map<string, Promise<{ label: string; href: string } | null>>();
  const gone = (e: unknown) => {
    if (e instanceof AppError) return null;
    throw e;
  };
  const caller = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
  const look = (kind: AuditSubject["kind"], id: string, ws: WorkspaceContext) => {
    switch (kind) {
      case "pipeline":
        return deps.content.pipelines.get(ws.id, id).then(
          // deno-lint-ignore no-explicit-any
          (p: any) => ({ label: String(p.name ?? id), href: `/pipelines/${id}` }),
          gone,
        );
      case "template":
        return deps.content.templates.get(ws.id, id).then(
          () => ({ label: id, href: `/templates/view?id=${encodeURIComponent(id)}` }),
          gone,
        );
      case "execution":
        return deps.runs.executions.visible(caller, ws.id, id).then(
          () => ({ label: id.slice(0, 8), href: `/runs/${id}` }),
          gone,
        );
      case "endpoint":
        return Promise.resolve(
          allows({ actor, workspace: ws }, "endpoints.manage")
            ? { label: id, href: "/endpoints" }
            : null,
        );
      default:
        return Promise.resolve(null);
    }
  };
  return (r: AuditRecord, kind: AuditSubject["kind"], id: string) => {
    if (!workspace || r.workspace_id !== workspace.id) return Promise.resolve(null);
    const key = `${kind}:${id}`;
    if (!seen.has(key)) seen.set(key, look(kind, id, workspace));
    return seen.get(key)!;
  };
}

/** Workspace names by id for an instance-wide view; one that no longer resolves keeps its id. */
async function workspaceNames(deps: UiPageDeps, actor: Principal, ids: Iterable<string>) {
  const unique = [...new Set(ids)];
  const user = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
  const found = await Promise.all(unique.map((id) => deps.admin.workspaces.resolveById(user, id)));
  return new Map(unique.map((id, i) => [id, found[i].context?.name ?? id]));
}

export function auditPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/audit",
      summary: "The audit log: a workspace admin's workspace, a super admin's whole instance",
      // The same row as GET /api/v1/audit, so the page refuses whom the API refuses.
      access: "audit.read",
      query: z.object({
        event: z.string().max(100).optional(),
        actor: z.string().max(64).optional(),
        from: z.string().max(40).optional(),
        to: z.string().max(40).optional(),
        scope: z.string().max(20).optional(),
      }),
      page: { defaultLimit: ROWS, maxLimit: ROWS },
    }),
    async (c, { actor, workspace, query, page }) => {
      // A filter the form could not have sent is no filter, as on the run history.
      const event = KNOWN_AUDIT_EVENTS.includes(query.event ?? "") ? query.event! : "";
      const actorId = z.uuid().safeParse(query.actor).success ? query.actor! : "";
      const scope = actor.isSuperAdmin && workspace && query.scope === "workspace"
        ? "workspace"
        : "instance";
      const [ctx, trail] = await Promise.all([
        shellContext(c, deps, actor),
        deps.admin.audit.trail({
          isSuperAdmin: actor.isSuperAdmin,
          workspaceId: workspace?.id ?? null,
        }, {
          scope,
          event: event || undefined,
          actor: actorId || undefined,
          from: dayBound(query.from, false),
          to: dayBound(query.to, true),
          offset: page.offset,
          limit: ROWS,
        }),
      ]);
      const [candidates, wsNames] = await Promise.all([
        trail.instanceWide
          ? deps.identity.users.list(undefined, 0, PEOPLE).then((l) => l.items.map((u) => u.id))
          : deps.admin.workspaces.members(workspace!.name).then((m) =>
            m.members.map((x) => x.user_id)
          ),
        trail.instanceWide
          ? workspaceNames(
            deps,
            actor,
            trail.items.flatMap((r) => r.workspace_id ? [r.workspace_id] : []),
          )
          : Promise.resolve(new Map<string, string>()),
      ]);
      const rowSubjects = trail.items.map(subjectsOf);
      const people = await peopleById(deps, [
        actor.userId,
        ...candidates,
        ...(actorId ? [actorId] : []),
        ...trail.items.flatMap((r) => r.user_id ? [r.user_id] : []),
        ...rowSubjects.flat().filter((s) => s.kind === "user").map((s) => s.id),
      ]);
      const link = linker(deps, actor, workspace);
      const rows: AuditRowView[] = await Promise.all(trail.items.map(async (r, i) => ({
        id: r.id,
        event: r.event,
        at: r.timestamp,
        actor: r.user_id
          ? people.get(r.user_id) ?? { name: "unknown user", email: r.user_id }
          : null,
        provider: r.provider,
        workspace: r.workspace_id
          ? wsNames.get(r.workspace_id) ??
            (r.workspace_id === workspace?.id ? workspace.name : null)
          : null,
        subjects: await Promise.all(rowSubjects[i].map(async (s) => {
          const linked = await link(r, s.kind, s.id);
          if (linked) return { kind: s.kind, ...linked };
          const label = s.kind === "user"
            ? people.get(s.id)?.email ?? s.id
            : s.kind === "key"
            ? [text(r.details.name) ?? text(r.details.key_name), s.id].filter(Boolean).join(" · ")
            : s.id;
          return { kind: s.kind, label };
        })),
        source_ip: r.source_ip,
        user_agent: r.user_agent,
        details: r.details,
      })));
      // Members (or every user, instance-wide) and whoever acted on this page: a super admin or a
      // former member who acted here can be picked too, without scanning the whole trail.
      const choices = [
        ...new Set([
          actor.userId,
          ...candidates,
          ...(actorId ? [actorId] : []),
          ...trail.items.flatMap((r) => r.user_id ? [r.user_id] : []),
        ]),
      ]
        .flatMap((id) => {
          const p = people.get(id);
          if (!p) return [];
          const who = id === actor.userId ? `You (${p.email})` : `${p.name} (${p.email})`;
          return [{ id, label: who }];
        })
        .sort((a, b) =>
          a.id === actor.userId ? -1 : b.id === actor.userId ? 1 : a.label.localeCompare(b.label)
        );
      return c.html(renderPage(
        <AuditPage
          ctx={ctx}
          now={new Date()}
          filters={{
            event,
            actor: actorId,
            from: dayBound(query.from, false) ? query.from! : "",
            to: dayBound(query.to, true) ? query.to! : "",
            scope,
          }}
          events={KNOWN_AUDIT_EVENTS}
          people={choices}
          scopes={actor.isSuperAdmin ? { workspace: workspace !== null } : null}
          rows={rows}
          offset={page.offset}
          limit={ROWS}
          total={trail.total}
        />,
      ));
    },
  );
}
