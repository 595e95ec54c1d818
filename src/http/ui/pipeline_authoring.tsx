/**
 * Pipeline lifecycle in the browser: the form partials that release, discard, restore and switch
 * versions, over the same pipeline service as REST. The editor and its saves live in
 * `pipeline_editor.tsx`.
 */
import { z } from "zod";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import type { Router } from "../routing.ts";
import { pipelineEditorRoutes } from "./pipeline_editor.tsx";
import { actOrBack, formPost, type UiPageDeps } from "./shell.ts";

const id = z.object({ id: z.uuid() });

/** Who acts, where: the handler's actor and the workspace the route guarantees. */
interface At {
  actor: Principal;
  workspace: WorkspaceContext;
}

export function pipelineAuthoringRoutes(router: Router, deps: UiPageDeps): void {
  pipelineEditorRoutes(router, deps);
  const op = (at: At) => ({ actor: at.actor, workspaceId: at.workspace.id });

  formPost(router, {
    path: "/partials/pipelines/:id/release",
    summary: "Release a pipeline's draft, its release checks run first",
    access: "versions.release",
    params: id,
    errors: ["pipeline.not_found"],
  }, (c, { actor, workspace, params }, f) => {
    const back = `/pipelines/${params.id}`;
    return actOrBack(c, back, async () => {
      const done = await deps.content.pipelines.release(
        { ...op({ actor, workspace }), scope: workspace },
        params.id,
        f.body_hash,
        {
          releasePinnedTemplates: f.release_pinned_templates === "true",
          overrideChecksReason: f.override_checks_reason || undefined,
        },
      );
      // deno-lint-ignore no-explicit-any
      return `${back}?released=${(done as any).version}`;
    });
  });

  formPost(router, {
    path: "/partials/pipelines/:id/discard",
    summary: "Purge a pipeline's draft",
    access: "content.write_session",
    params: id,
    errors: ["pipeline.not_found"],
  }, (c, { actor, workspace, params }, f) =>
    actOrBack(c, `/pipelines/${params.id}`, async () => {
      await deps.content.pipelines.purgeDraft(op({ actor, workspace }), params.id, f.body_hash);
      // A sole draft takes the pipeline with it: then there is no page to go back to.
      const left = await deps.content.pipelines.get(workspace.id, params.id).catch(() => null);
      return left ? `/pipelines/${params.id}?discarded=1` : "/pipelines";
    }));

  const moves = {
    restore: deps.content.pipelines.restore,
    discard: deps.content.pipelines.discard,
    current: deps.content.pipelines.switchCurrent,
  };
  const versionMove = (
    verb: keyof typeof moves,
    summary: string,
    access: "content.write_session" | "versions.switch",
  ) =>
    formPost(router, {
      path: `/partials/pipelines/:id/versions/:version/${verb}`,
      summary,
      access,
      params: z.object({ id: z.uuid(), version: z.coerce.number().int().min(1) }),
      errors: ["pipeline.not_found"],
    }, (c, { actor, workspace, params }) => {
      const back = `/pipelines/${params.id}`;
      return actOrBack(c, back, async () => {
        await moves[verb].call(
          deps.content.pipelines,
          op({ actor, workspace }),
          params.id,
          params.version,
        );
        return `${back}?moved=${verb}-${params.version}`;
      });
    });
  versionMove("restore", "Restore a discarded version", "content.write_session");
  versionMove("discard", "Discard a released version", "content.write_session");
  versionMove("current", "Make a released version the current one", "versions.switch");
}
