/**
 * Registering and editing a workspace's datasource from the browser, over the same registry use
 * cases as `POST/PUT /datasources`. The password is write-only: never rendered, and an empty field
 * on an edit keeps the stored secret.
 */
import { z } from "zod";
import { DIALECTS } from "../../datasources/mod.ts";
import { AppError } from "../../errors/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import { type DatasourceDraft, DatasourceFormPage } from "../../../ui/pages/datasource_form.tsx";
import type { EditorError } from "../../../ui/pages/template_editor.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { AccessFor, Router } from "../routing.ts";
import {
  formPost,
  pageRoute,
  rethrowUnlessRefusal,
  shellContext,
  type UiPageDeps,
} from "./shell.ts";

const name = z.object({ name: z.string().min(1).max(200) });

function draftOf(f: Record<string, string>, fixedName?: string): DatasourceDraft {
  return {
    name: fixedName ?? f.name ?? "",
    display_name: f.display_name ?? "",
    dialect: f.dialect ?? DIALECTS[0],
    jdbc_url: f.jdbc_url ?? "",
    username: f.username ?? "",
    readonly: f.readonly === "true",
  };
}

/** The registry body a form describes; the password travels only when one was typed. */
function bodyOf(d: DatasourceDraft, password: string | undefined) {
  return {
    name: d.name,
    ...(d.display_name ? { display_name: d.display_name } : {}),
    dialect: d.dialect,
    jdbc_url: d.jdbc_url,
    readonly: d.readonly,
    ...(password
      ? { username: d.username || undefined, password }
      : d.username
      ? { credential: { kind: "password", username: d.username } }
      : {}),
  };
}

function placed(e: AppError): EditorError {
  const field = (e.details as Record<string, unknown>).field;
  const known = ["name", "display_name", "dialect", "jdbc_url", "username", "password"];
  const f = typeof field === "string"
    ? field.replace(/^credential\.(secret|username)$/, (_, x) => x === "secret" ? "password" : x)
    : undefined;
  return { code: e.code, message: e.userMessage, field: f && known.includes(f) ? f : undefined };
}

export function datasourceFormRoutes(router: Router, deps: UiPageDeps): void {
  const page = async (
    c: AppContext,
    actor: Principal,
    props: Omit<Parameters<typeof DatasourceFormPage>[0], "ctx" | "dialects">,
    status = 200,
  ) => {
    const ctx = await shellContext(c, deps, actor);
    const html = renderPage(<DatasourceFormPage ctx={ctx} dialects={DIALECTS} {...props} />);
    return c.html(html, status as 200);
  };
  /** A datasource no workspace owns is instance administration, as on the REST route. */
  const target: AccessFor = async (_c, { actor, params, workspace }) =>
    await deps.content.datasources.writeTarget(actor, workspace, params.name ?? "") === "instance"
      ? { access: "datasources.write_instance" }
      : undefined;

  router.add(
    pageRoute({
      method: "get",
      path: "/datasources/new",
      summary: "The form to register a datasource in this workspace",
      access: "datasources.write",
    }),
    (c, { actor }) =>
      page(c, actor, {
        mode: "new",
        draft: {
          name: "",
          display_name: "",
          dialect: "POSTGRES",
          jdbc_url: "",
          username: "",
          readonly: false,
        },
      }),
  );

  formPost(router, {
    path: "/partials/datasources/create",
    summary: "Register a datasource from the form",
    access: "datasources.write",
  }, async (c, { actor, workspace }, f) => {
    const draft = draftOf(f);
    try {
      const made = await deps.content.datasources.create(
        actor,
        workspace,
        bodyOf(draft, f.password),
      );
      return c.redirect(`/datasources/${made.name}?saved=1`, 303);
    } catch (e) {
      rethrowUnlessRefusal(e);
      return page(c, actor, { mode: "new", draft, error: placed(e) }, e.status);
    }
  });

  router.add(
    pageRoute({
      method: "get",
      path: "/datasources/:name/edit",
      summary: "The form to edit a datasource",
      access: "datasources.write",
      accessFor: target,
      params: name,
      errors: ["datasource.not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const d = await deps.content.datasources.get(actor, workspace, params.name);
      return page(c, actor, {
        mode: "edit",
        passwordSet: d.password_set,
        draft: {
          name: d.name,
          display_name: d.display_name,
          dialect: d.dialect,
          jdbc_url: d.jdbc_url,
          username: d.credential.username ?? d.username ?? "",
          readonly: d.readonly,
        },
      });
    },
  );

  formPost(router, {
    path: "/partials/datasources/:name/save",
    summary: "Save a datasource from the form",
    access: "datasources.write",
    accessFor: target,
    params: name,
    errors: ["datasource.not_found"],
  }, async (c, { actor, workspace, params }, f) => {
    const draft = draftOf(f, params.name);
    try {
      await deps.content.datasources.update(
        actor,
        workspace,
        params.name,
        bodyOf(draft, f.password),
      );
      return c.redirect(`/datasources/${params.name}?saved=1`, 303);
    } catch (e) {
      rethrowUnlessRefusal(e);
      return page(
        c,
        actor,
        { mode: "edit", passwordSet: true, draft, error: placed(e) },
        e.status,
      );
    }
  });
}
