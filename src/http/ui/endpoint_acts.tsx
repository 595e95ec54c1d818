/**
 * Publishing and managing endpoints from the browser: the publish page with its path builder, and
 * the partials behind publish, enable/disable, unpublish, bind and unbind. Each calls the same
 * `EndpointService` method as its REST twin under `/api/v1/endpoints` (the `endpoints.manage`
 * row), so it refuses what the twin refuses, with the same status and code; a refusal of what was
 * typed is drawn on the field it concerns, everything else answers as an error.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { parsePattern } from "../../endpoints/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { endpointHref } from "../../../ui/components/endpoint_parts.tsx";
import {
  type PublishDraft,
  type PublishError,
  PublishPage,
} from "../../../ui/pages/endpoint_publish.tsx";
import type { BindDraft, BindError } from "../../../ui/pages/endpoints.tsx";
import type { ParameterView } from "../../pipelines/mod.ts";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router, RouteSpec } from "../routing.ts";
import { backOf } from "./api_keys.tsx";
import { endpointsPage } from "./endpoints.tsx";
import { formPost, pageRoute, shellContext, type UiPageDeps, withFlash } from "./shell.ts";

const LIST_PAGE = { offset: 0, limit: 50 };

/** What a refused publish says on its field: the details, not only the code's generic text. */
function placedPublish(e: AppError): PublishError {
  // deno-lint-ignore no-explicit-any
  const d = e.details as Record<string, any>;
  const at = (field: PublishError["field"], message: string) => ({ code: e.code, message, field });
  switch (e.code) {
    case "endpoint.validation.path_invalid":
      return at("path_pattern", `This path is not valid: ${d.reason}.`);
    case "endpoint.path_variable_unknown": {
      const declared: string[] = d.declared ?? [];
      return at(
        "path_pattern",
        `{${d.variable}} is not a parameter of release v${d.pipeline_version}; ` +
          (declared.length ? `its parameters are ${declared.join(", ")}.` : "it declares none."),
      );
    }
    case "endpoint.path_conflict":
      return at(
        "path_pattern",
        `Some URL would match both this path and ${d.conflicts_with}, which is published ` +
          `already. Make a literal segment differ, or add one.`,
      );
    case "endpoint.pipeline_not_readonly":
      return at(
        "pipeline",
        `Node ${d.node_id}${d.via?.length ? ` (through ${d.via.join(" → ")})` : ""}: ` +
          `${d.reason}. Only pipelines whose every node only reads can be published.`,
      );
    case "endpoint.pipeline_not_released":
    case "pipeline.not_found":
      return at("pipeline", e.userMessage);
  }
  const field = { timeout_seconds: "timeout_seconds", description: "description" }[
    String(d.field)
  ] as PublishError["field"];
  return field
    ? at(field, `${e.userMessage} (${d.reason ?? d.field})`)
    : { code: e.code, message: e.userMessage };
}

/** Where a refused bind or unbind belongs on the bind form. */
function placedBind(e: AppError): BindError {
  const d = e.details as Record<string, unknown>;
  const field: BindError["field"] = e.code === "endpoint.validation.path_invalid"
    ? "path"
    : ["endpoint.key_not_found", "endpoint.key_kind_refused", "endpoint.key_name_ambiguous"]
        .includes(e.code)
    ? "key_name"
    : d.field === "path" || d.field === "key_name"
    ? d.field
    : undefined;
  const message = e.code === "endpoint.validation.path_invalid"
    ? `Not a node of the endpoint tree: ${d.reason}.`
    : e.message;
  return { code: e.code, message, field };
}

/** A path the service would accept as a start: `/` and the pipeline's name, if it fits. */
function proposedPath(name: string): string {
  const text = "/" + name.toLowerCase().replace(/[^a-z0-9_./-]+/g, "-");
  try {
    return parsePattern(text).text;
  } catch {
    return "";
  }
}

/** The service's refusals of what was asked; anything else (5xx) is the error handler's. */
const refusal = (e: unknown): e is AppError => e instanceof AppError && e.status < 500;

export function endpointActRoutes(router: Router, deps: UiPageDeps): void {
  const publishPage = async (
    c: AppContext,
    at: { actor: Principal; workspace: WorkspaceContext },
    pipelineId: string,
    form: { draft?: PublishDraft; error?: PublishError } = {},
    status = 200,
  ) => {
    const ctx0 = { actor: at.actor, workspaceId: at.workspace.id };
    const [ctx, view, version, over] = await Promise.all([
      shellContext(c, deps, at.actor),
      deps.content.pipelines.get(at.workspace.id, pipelineId),
      deps.publishing.endpoints.servedRelease(ctx0, pipelineId),
      deps.publishing.endpoints.overPipeline(ctx0, pipelineId),
    ]);
    // deno-lint-ignore no-explicit-any
    const v = view as any;
    const release = version === null ? null : {
      version,
      parameters:
        ((await deps.content.pipelines.getVersion(at.workspace.id, pipelineId, version)) as {
          parameters?: Record<string, ParameterView>;
        }).parameters ?? {},
    };
    const html = renderPage(
      <PublishPage
        ctx={ctx}
        origin={deps.platform.origin()}
        pipeline={{
          id: pipelineId,
          name: v.name,
          title: v.display_name ?? v.name.slice(v.name.lastIndexOf("/") + 1),
        }}
        release={release}
        published={over}
        draft={form.draft ?? {
          path_pattern: proposedPath(v.name),
          timeout_seconds: "",
          description: "",
          enabled: true,
        }}
        error={form.error}
        timeout={deps.publishing.endpoints.timeouts}
      />,
    );
    return c.html(html, status as 200);
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id/publish",
      summary: "The form that publishes a released pipeline as an endpoint (path builder)",
      access: "endpoints.manage",
      params: z.object({ id: z.uuid() }),
      errors: ["pipeline.not_found"],
    }),
    (c, { actor, workspace, params }) => publishPage(c, { actor, workspace }, params.id),
  );

  formPost(router, {
    path: "/partials/endpoints/publish",
    summary: "Publish from the form, as POST /api/v1/endpoints does",
    access: "endpoints.manage",
    errors: [
      "endpoint.validation.path_invalid",
      "pipeline.not_found",
      "endpoint.pipeline_not_released",
      "endpoint.pipeline_not_readonly",
      "endpoint.path_variable_unknown",
      "endpoint.path_conflict",
    ],
  }, async (c, { actor, workspace }, f) => {
    const draft: PublishDraft = {
      path_pattern: f.path_pattern ?? "",
      timeout_seconds: (f.timeout_seconds ?? "").trim(),
      description: f.description ?? "",
      enabled: f.enabled === "true",
    };
    const timeout = draft.timeout_seconds;
    try {
      const made = await deps.publishing.endpoints.publish({ actor, workspaceId: workspace.id }, {
        path_pattern: draft.path_pattern,
        pipeline_id: f.pipeline_id ?? "",
        // A number that is no integer goes as typed, so the service names the field.
        ...(timeout ? { timeout_seconds: /^-?\d{1,9}$/.test(timeout) ? +timeout : timeout } : {}),
        ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
        enabled: draft.enabled,
      });
      return c.redirect(
        withFlash(endpointHref(made.path_pattern), "published", made.path_pattern),
        303,
      );
    } catch (e) {
      // Without a pipeline to draw, the form cannot be drawn either: answer the refusal.
      if (!refusal(e) || e.code === "pipeline.not_found") throw e;
      return await publishPage(c, { actor, workspace }, f.pipeline_id ?? "", {
        draft,
        error: placedPublish(e),
      }, e.status);
    }
  });

  // Both acts name a published endpoint by its path.
  const onEndpoint = {
    access: "endpoints.manage",
    errors: ["endpoint.not_found", "endpoint.validation.path_invalid"],
  } satisfies Partial<RouteSpec>;

  formPost(router, {
    path: "/partials/endpoints/state",
    summary: "Enable or disable an endpoint, as PUT /api/v1/endpoints?path= does",
    ...onEndpoint,
  }, async (c, { actor, workspace }, f) => {
    // Anything but the two words goes as typed, so the service refuses it as the API would.
    const enabled = f.enabled === "true" ? true : f.enabled === "false" ? false : f.enabled;
    const view = await deps.publishing.endpoints.setEnabled(
      { actor, workspaceId: workspace.id },
      f.path,
      { enabled },
    );
    const back = backOf(f.back) ?? "/endpoints";
    return c.redirect(
      withFlash(back, view.enabled ? "enabled" : "disabled", view.path_pattern),
      303,
    );
  });

  formPost(router, {
    path: "/partials/endpoints/unpublish",
    summary: "Unpublish an endpoint, as DELETE /api/v1/endpoints?path= does",
    ...onEndpoint,
  }, async (c, { actor, workspace }, f) => {
    await deps.publishing.endpoints.unpublish({ actor, workspaceId: workspace.id }, f.path);
    return c.redirect(withFlash("/endpoints", "unpublished", String(f.path)), 303);
  });

  const bindingAct = (remove: boolean) =>
  async (
    c: AppContext,
    { actor, workspace }: { actor: Principal; workspace: WorkspaceContext },
    f: Record<string, string>,
  ) => {
    const body = { path: f.path, key_name: f.key_name ?? "" };
    const ctx0 = { actor, workspaceId: workspace.id };
    try {
      if (remove) await deps.publishing.endpoints.unbind(ctx0, body);
      else await deps.publishing.endpoints.bind(ctx0, body);
    } catch (e) {
      if (!refusal(e)) throw e;
      const draft: BindDraft = remove
        ? { key_name: body.key_name, path: "" }
        : { key_name: body.key_name, path: String(f.path ?? "") };
      const error = placedBind(e);
      return await endpointsPage(c, deps, { actor, workspace, page: LIST_PAGE }, {
        bind: { draft, error: remove ? { ...error, field: undefined } : error },
      }, e.status);
    }
    const flash = withFlash("/endpoints", remove ? "unbound" : "bound", body.key_name);
    return c.redirect(`${withFlash(flash, "node", String(f.path))}#bindings`, 303);
  };

  formPost(router, {
    path: "/partials/endpoints/bindings",
    summary: "Bind one of your endpoint keys to a node, as POST /api/v1/endpoints/bindings does",
    access: "endpoints.manage",
    errors: [
      "endpoint.validation.path_invalid",
      "endpoint.key_not_found",
      "endpoint.key_name_ambiguous",
      "endpoint.key_kind_refused",
    ],
  }, bindingAct(false));

  formPost(router, {
    path: "/partials/endpoints/bindings/remove",
    summary: "Unbind one of your endpoint keys, as DELETE /api/v1/endpoints/bindings does",
    access: "endpoints.manage",
    errors: [
      "endpoint.validation.path_invalid",
      "endpoint.key_not_found",
      "endpoint.binding_not_found",
    ],
  }, bindingAct(true));
}
