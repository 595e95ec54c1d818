import { Card } from "../components/card.tsx";
import { entryTrail } from "../components/folder_list.tsx";
import { PageHead } from "../components/page_head.tsx";
import { StatusBadge } from "../components/status.tsx";
import { type VersionRow, VersionsCard } from "../components/versions_card.tsx";
import { ConfirmDialog, ConfirmLink } from "../components/confirm.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

export interface TemplatePageProps {
  ctx: ShellContext;
  now: Date;
  template: {
    id: string;
    type: string;
    dialect?: string;
    display_name: string;
    description: string | null;
    imports: { alias: string; id: string; version: number }[];
    body: string;
    version: number;
    status: string;
    current_version: number | null;
    body_hash: string;
  };
  /** The working version rendered with no parameters: its SQL and the placeholders it binds. */
  preview: { sql: string; placeholders: string[] } | { error: string } | null;
  can: { write: boolean; release: boolean };
  /** `?confirm=release`: the release asks first, as a dialog. */
  confirmRelease?: boolean;
  flash: { saved?: boolean; released?: number; error?: string };
  versions: VersionRow[];
  /** Stored pipeline and template versions that pin this template. */
  usedBy: { kind: string; id: string; name: string; version: number; pinned_version: number }[];
}

/** `/templates/view?id=`: the working version's body, its imports, versions and users. */
export function TemplatePage(props: TemplatePageProps) {
  const t = props.template;
  return (
    <AppShell title={t.display_name} nav="templates" ctx={props.ctx}>
      <PageHead
        trail={entryTrail("/templates", "Templates", t.id)}
        title={
          <>
            {t.display_name} <StatusBadge status={t.status} />
          </>
        }
        actions={
          <>
            {props.can.write && (
              <a class="btn" href={`/templates/edit?id=${encodeURIComponent(t.id)}`}>Edit</a>
            )}
            {!props.can.write && (
              <a class="btn" href={`/templates/edit?id=${encodeURIComponent(t.id)}`}>
                View definition
              </a>
            )}
            {props.can.release && t.status === "DRAFT" && (
              <ConfirmLink
                class="btn primary"
                href={`/templates/view?id=${encodeURIComponent(t.id)}&confirm=release`}
              >
                Release v{t.version}
              </ConfirmLink>
            )}
          </>
        }
      >
        <p class="mono small">
          {t.id} · v{t.version} · {t.type}
          {t.dialect ? ` · ${t.dialect.toLowerCase()}` : ""}
        </p>
      </PageHead>
      {props.flash.saved && <div class="banner ok" role="status">Draft saved.</div>}
      {props.flash.released && (
        <div class="banner ok" role="status">Released v{props.flash.released}.</div>
      )}
      {props.flash.error && <div class="banner error" role="alert">{props.flash.error}</div>}
      {t.description && <p class="lead">{t.description}</p>}
      <Card title="Body" note="Liquid; parameters are :placeholders">
        <pre class="sql body-pre"><code>{t.body}</code></pre>
      </Card>
      {props.preview && (
        <section class="card section-gap">
          <header>
            <h2>Rendered</h2>
            {"placeholders" in props.preview && (
              <span class="muted small">
                binds {props.preview.placeholders.length
                  ? props.preview.placeholders.map((p) => `:${p}`).join(", ")
                  : "no parameters"}
              </span>
            )}
          </header>
          {"sql" in props.preview
            ? <pre class="sql body-pre"><code>{props.preview.sql}</code></pre>
            : <div class="banner error schema-error">{props.preview.error}</div>}
        </section>
      )}
      <div class="grid cols-2 section-gap">
        <Card title="Imports">
          {t.imports.length === 0 ? <div class="empty">No imports.</div> : (
            <ul class="list">
              {t.imports.map((i) => (
                <li key={i.alias}>
                  <span class="mono">{i.alias}</span>
                  <a class="mono small" href={`/templates/view?id=${encodeURIComponent(i.id)}`}>
                    {i.id} v{i.version}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Used by">
          {props.usedBy.length === 0
            ? <div class="empty">Nothing pins this template.</div>
            : (
              <ul class="list">
                {props.usedBy.map((u) => (
                  <li key={`${u.kind}:${u.id}@${u.version}`}>
                    <a
                      class="title"
                      href={u.kind === "pipeline"
                        ? `/pipelines/${u.id}`
                        : `/templates/view?id=${encodeURIComponent(u.id)}`}
                    >
                      {u.name}
                    </a>
                    <span class="meta">
                      {u.kind} v{u.version} pins v{u.pinned_version}
                    </span>
                  </li>
                ))}
              </ul>
            )}
        </Card>
      </div>
      <div class="section-gap">
        <VersionsCard versions={props.versions} current={t.current_version} now={props.now} />
      </div>
      {props.confirmRelease && props.can.release && t.status === "DRAFT" && (
        <ConfirmDialog
          id="confirm-act"
          title={`Release v${t.version} of ${t.id}?`}
          action="/partials/templates/release"
          csrf={props.ctx.csrf}
          fields={{ id: t.id, body_hash: t.body_hash }}
          confirm={`Release v${t.version}`}
          cancel={`/templates/view?id=${encodeURIComponent(t.id)}`}
        >
          <p>
            v{t.version}{" "}
            becomes a release that pipelines and other templates can pin, and its text is fixed from
            then on.
          </p>
        </ConfirmDialog>
      )}
    </AppShell>
  );
}
