import { Pager } from "../components/paging.tsx";
import { Ago, StatusBadge } from "../components/status.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

export interface PipelineRow {
  id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  current_version: number | null;
  version: number | null;
  status: string | null;
  updated_at: string;
}

export interface PipelinesPageProps {
  ctx: ShellContext;
  now: Date;
  prefix: string;
  q: string;
  folders: { path: string; segment: string; pipeline_count: number }[];
  pipelines: PipelineRow[];
  offset: number;
  limit: number;
  total: number;
}

/** The crumbs of a folder path: the root, then each segment. */
function FolderCrumbs(props: { prefix: string }) {
  const parts = props.prefix.split("/").filter(Boolean);
  return (
    <div class="crumbs">
      <a href="/pipelines">Pipelines</a>
      {parts.map((p, i) => (
        <span key={i}>
          {" / "}
          <a
            href={`/pipelines?prefix=${encodeURIComponent(parts.slice(0, i + 1).join("/") + "/")}`}
          >
            {p}
          </a>
        </span>
      ))}
    </div>
  );
}

/** `/pipelines`: one folder level, or every match of a search across full paths. */
export function PipelinesPage(props: PipelinesPageProps) {
  const searching = props.q !== "";
  return (
    <AppShell title="Pipelines" nav="pipelines" ctx={props.ctx}>
      <div class="page-head">
        <div>
          <FolderCrumbs prefix={props.prefix} />
          <h1>Pipelines</h1>
          <p>DAGs of SQL that read, stage and deliver one result.</p>
        </div>
      </div>
      <form method="get" action="/pipelines" class="toolbar" role="search">
        <label class="sr-only" for="pipeline-search">Search pipelines</label>
        <input
          id="pipeline-search"
          type="search"
          name="q"
          value={props.q}
          placeholder="Search every folder by path…"
        />
        <button type="submit">Search</button>
        {searching && <a href="/pipelines" class="btn ghost">Clear</a>}
      </form>
      <section class="card">
        {props.folders.length === 0 && props.pipelines.length === 0
          ? (
            <div class="empty">
              <strong>{searching ? "No pipeline matches" : "No pipelines here yet"}</strong>
              {searching ? `Nothing's path contains “${props.q}”.` : "Create one to get started."}
            </div>
          )
          : (
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Status</th>
                  <th>Released</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {props.folders.map((f) => (
                  <tr key={f.path}>
                    <td>
                      <a
                        class="title folder"
                        href={`/pipelines?prefix=${encodeURIComponent(f.path)}`}
                      >
                        {f.segment}/
                      </a>
                    </td>
                    <td class="muted" colSpan={3}>
                      {f.pipeline_count} pipeline{f.pipeline_count === 1 ? "" : "s"}
                    </td>
                  </tr>
                ))}
                {props.pipelines.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <a class="title" href={`/pipelines/${p.id}`}>
                        {p.display_name ?? p.name.slice(p.name.lastIndexOf("/") + 1)}
                      </a>
                      <div class="muted small mono">{p.name}</div>
                    </td>
                    <td>{p.status ? <StatusBadge status={p.status} /> : "—"}</td>
                    <td>{p.current_version === null ? "—" : `v${p.current_version}`}</td>
                    <td class="muted">
                      <Ago at={p.updated_at} now={props.now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </section>
      <Pager
        base="/pipelines"
        query={{ prefix: props.prefix || undefined, q: props.q || undefined }}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </AppShell>
  );
}
