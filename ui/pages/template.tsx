import { Ago, StatusBadge } from "../components/status.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { PipelineVersionRow } from "./pipeline.tsx";

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
  };
  versions: PipelineVersionRow[];
}

/** `/templates/view?id=`: the working version's body, its imports, versions and users. */
export function TemplatePage(props: TemplatePageProps) {
  const t = props.template;
  const folder = t.id.includes("/") ? t.id.slice(0, t.id.lastIndexOf("/") + 1) : "";
  return (
    <AppShell title={t.display_name} nav="templates" ctx={props.ctx}>
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href="/templates">Templates</a>
            {folder && (
              <>
                {" / "}
                <a href={`/templates?prefix=${encodeURIComponent(folder)}`}>{folder}</a>
              </>
            )}
          </div>
          <h1>
            {t.display_name} <StatusBadge status={t.status} />
          </h1>
          <p class="mono small">
            {t.id} · v{t.version} · {t.type}
            {t.dialect ? ` · ${t.dialect.toLowerCase()}` : ""}
          </p>
        </div>
      </div>
      {t.description && <p class="lead">{t.description}</p>}
      <section class="card">
        <header>
          <h2>Body</h2>
          <span class="muted small">Liquid; parameters are :placeholders</span>
        </header>
        <pre class="sql body-pre"><code>{t.body}</code></pre>
      </section>
      <div class="section-gap">
        <section class="card">
          <header>
            <h2>Imports</h2>
          </header>
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
        </section>
      </div>
      <section class="card section-gap">
        <header>
          <h2>Versions</h2>
          <span class="muted small">
            {t.current_version === null ? "never released" : `current v${t.current_version}`}
          </span>
        </header>
        <table>
          <thead>
            <tr>
              <th>Version</th>
              <th>Status</th>
              <th>By</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {props.versions.map((v) => (
              <tr key={v.version}>
                <td>v{v.version}</td>
                <td>
                  <StatusBadge status={v.status} />
                </td>
                <td>{v.created_by_name}</td>
                <td class="muted">
                  <Ago at={v.released_at ?? v.created_at} now={props.now} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </AppShell>
  );
}
