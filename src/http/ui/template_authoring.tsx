/**
 * Template authoring in the browser: the editor pages and the form partials that save and
 * release, over the same template service as `POST/PUT /templates` and `/templates/release`. A
 * refused save re-renders the editor with the author's text and the error on its field.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import { TEMPLATE_DIALECTS } from "../../templates/mod.ts";
import {
  type EditorError,
  type TemplateDraft,
  TemplateEditorPage,
} from "../../../ui/pages/template_editor.tsx";
import { renderPage } from "../../../ui/render.tsx";
import { renderToString } from "preact-render-to-string";
import { RenderPreview } from "../../../ui/components/render_preview.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import {
  actOrBack,
  allows,
  formPost,
  pageRoute,
  rethrowUnlessRefusal,
  shellContext,
  type UiPageDeps,
  userNames,
} from "./shell.ts";

const IMPORT_LINE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)@(\d+)$/;

function importsText(imports: { alias: string; id: string; version: number }[]): string {
  return imports.map((i) => `${i.alias} = ${i.id}@${i.version}`).join("\n");
}

function parseImports(text: string): { alias: string; id: string; version: number }[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).map((line) => {
    const m = IMPORT_LINE.exec(line);
    if (!m) {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: "imports",
        reason: `"${line.slice(0, 80)}" is not alias = template id@version`,
      });
    }
    return { alias: m[1], id: m[2], version: Number(m[3]) };
  });
}

/** Which form field an error names, from its details or, failing that, its code. */
function fieldOf(e: AppError): string | undefined {
  const d = e.details as Record<string, unknown>;
  if (typeof d.field === "string") return d.field === "name" ? "id" : d.field;
  if (/render|syntax|body|interpolation|tag/.test(e.code)) return "body";
  if (/import/.test(e.code)) return "imports";
  if (/dialect/.test(e.code)) return "dialect";
  if (/\.(id|name)_|duplicate|taken/.test(e.code)) return "id";
  return undefined;
}

export function templateAuthoringRoutes(router: Router, deps: UiPageDeps): void {
  const dialects = TEMPLATE_DIALECTS;
  const editor = async (
    c: AppContext,
    actor: Principal,
    props: {
      mode: "new" | "edit";
      draft: TemplateDraft;
      bodyHash?: string;
      error?: EditorError;
      conflict?: Parameters<typeof TemplateEditorPage>[0]["conflict"];
      readOnly?: boolean;
    },
    status: 200 | 400 | 404 | 409 = 200,
  ) => {
    const ctx = await shellContext(c, deps, actor);
    return c.html(
      renderPage(
        <TemplateEditorPage ctx={ctx} dialects={dialects} {...props} />,
      ),
      status,
    );
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/templates/new",
      summary: "The editor for a new template",
      access: "content.write",
    }),
    (c, { actor }) =>
      editor(c, actor, {
        mode: "new",
        draft: {
          id: "",
          display_name: "",
          description: "",
          dialect: dialects[0],
          body: "SELECT 1 AS answer",
          imports: "",
        },
      }),
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/templates/edit",
      summary: "The editor for a template's working version; read-only without author",
      // The template editor page needs only the read operation.
      access: "content.read",
      query: z.object({ id: z.string().min(1).max(200) }),
      errors: ["template.not_found"],
    }),
    async (c, { actor, workspace, query }) => {
      const t = await deps.content.templates.get(workspace.id, query.id);
      return editor(c, actor, {
        mode: "edit",
        readOnly: !allows({ actor, workspace }, "content.write"),
        bodyHash: t.body_hash,
        draft: {
          id: t.id,
          display_name: t.display_name,
          description: t.description ?? "",
          dialect: t.dialect ?? dialects[0],
          body: t.body,
          imports: importsText(t.imports),
        },
      });
    },
  );

  formPost(router, {
    path: "/partials/templates/save",
    summary: "Create or save a template from the editor form",
    access: "content.write",
  }, async (c, { actor, workspace }, f) => {
    const mode = f.mode === "edit" ? "edit" : "new";
    const draft: TemplateDraft = {
      id: f.id ?? "",
      display_name: f.display_name ?? "",
      description: f.description ?? "",
      dialect: f.dialect ?? dialects[0],
      body: f.body ?? "",
      imports: f.imports ?? "",
    };
    const op = { actor: actor, workspaceId: workspace.id };
    try {
      const input = {
        id: draft.id,
        display_name: draft.display_name,
        description: draft.description || null,
        dialect: draft.dialect,
        body: draft.body,
        imports: parseImports(draft.imports),
      };
      const saved = mode === "new"
        ? await deps.content.templates.create(op, input)
        : await deps.content.templates.update(op, f.body_hash, input);
      return c.redirect(`/templates/view?id=${encodeURIComponent(saved.id)}&saved=1`, 303);
    } catch (e) {
      rethrowUnlessRefusal(e);
      const error = { field: fieldOf(e), code: e.code, message: e.userMessage };
      if (e.code === "template.version.conflict") {
        const theirs = await deps.content.templates.get(op.workspaceId, draft.id);
        const names = await userNames(deps, [theirs.updated_by]);
        return editor(c, actor, {
          mode,
          draft,
          bodyHash: f.body_hash,
          error,
          conflict: {
            version: theirs.version,
            status: theirs.status,
            author: names.get(theirs.updated_by) ?? "someone",
            body: theirs.body,
            body_hash: theirs.body_hash,
          },
        }, 409);
      }
      return editor(
        c,
        actor,
        { mode, draft, bodyHash: f.body_hash, error },
        e.status as 400 | 404 | 409,
      );
    }
  });

  formPost(router, {
    path: "/partials/templates/release",
    summary: "Release a template's draft from its page",
    access: "versions.release",
  }, (c, { actor, workspace }, f) => {
    const op = { actor: actor, workspaceId: workspace.id };
    const back = `/templates/view?id=${encodeURIComponent(f.id ?? "")}`;
    return actOrBack(c, back, async () => {
      const done = await deps.content.templates.release(op, f.id ?? "", f.body_hash);
      return `${back}&released=${done.version}`;
    });
  });

  formPost(router, {
    path: "/partials/templates/preview",
    summary: "Render the editor's unsaved text: the SQL and the placeholders it binds",
    access: "content.write",
  }, async (c, { workspace }, f) => {
    try {
      const out = await deps.content.templates.preview(workspace.id, {
        id: f.id,
        dialect: f.dialect ?? dialects[0],
        body: f.body ?? "",
        imports: parseImports(f.imports ?? ""),
      });
      return c.html(
        renderToString(<RenderPreview sql={out.sql} placeholders={out.placeholders} />),
      );
    } catch (e) {
      rethrowUnlessRefusal(e);
      // The preview answers 200 either way: htmx swaps only successes, and a refusal is content.
      return c.html(renderToString(<RenderPreview error={`${e.code}: ${e.userMessage}`} />));
    }
  });
}
