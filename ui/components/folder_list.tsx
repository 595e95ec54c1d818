import type { ComponentChildren } from "preact";
import { Pager } from "./paging.tsx";
import { Ago, StatusBadge } from "./status.tsx";
import { Head } from "./head.tsx";
import type { Crumb } from "./page_head.tsx";

/** One entry of a versioned folder tree: a pipeline or a template. */
export interface FolderEntry {
  href: string;
  title: string;
  path: string;
  status: string | null;
  current_version: number | null;
  updated_at: string;
  /** A short word beside the status, e.g. a template's dialect. */
  tag?: string;
}

export interface FolderListProps {
  /** The page's own path, e.g. `/pipelines`. */
  base: string;
  noun: string;
  now: Date;
  prefix: string;
  q: string;
  folders: { path: string; segment: string; count: number }[];
  entries: FolderEntry[];
  offset: number;
  limit: number;
  total: number;
  children?: ComponentChildren;
}

function folderHref(base: string, folder: string): string {
  return `${base}?prefix=${encodeURIComponent(folder)}`;
}

/** The trail to a folder of the tree at `base`: the root, then each segment. */
export function folderTrail(base: string, root: string, prefix: string): Crumb[] {
  const parts = prefix.split("/").filter(Boolean);
  const segments = parts.map((
    p,
    i,
  ): Crumb => [folderHref(base, parts.slice(0, i + 1).join("/") + "/"), p]);
  return [[base, root], ...segments];
}

/** The trail to one entry of the tree at `base`: the root, then the entry's folder as one step. */
export function entryTrail(base: string, root: string, path: string): Crumb[] {
  const folder = path.slice(0, path.lastIndexOf("/") + 1);
  return folder ? [[base, root], [folderHref(base, folder), folder]] : [[base, root]];
}

/**
 * One folder level (sub-folders first, then entries) or, with `q`, every match across full
 * paths; the search form and paging keep plain links so the page reads without JavaScript.
 */
export function FolderList(props: FolderListProps) {
  const searching = props.q !== "";
  const plural = `${props.noun}s`;
  return (
    <>
      <form method="get" action={props.base} class="toolbar" role="search">
        <label class="sr-only" for="folder-search">Search {plural}</label>
        <input
          id="folder-search"
          type="search"
          name="q"
          value={props.q}
          placeholder="Search every folder by path…"
        />
        <button type="submit">Search</button>
        {searching && <a href={props.base} class="btn ghost">Clear</a>}
      </form>
      <section class="card">
        {props.folders.length === 0 && props.entries.length === 0
          ? (
            <div class="empty">
              <strong>{searching ? `No ${props.noun} matches` : `No ${plural} here yet`}</strong>
              {searching ? `No path contains “${props.q}”.` : props.children}
            </div>
          )
          : (
            <table>
              <Head cols={["Name", "Status", "Released", "Updated"]} />
              <tbody>
                {props.folders.map((f) => (
                  <tr key={f.path}>
                    <td>
                      <a
                        class="title folder"
                        href={`${props.base}?prefix=${encodeURIComponent(f.path)}`}
                      >
                        {f.segment}/
                      </a>
                    </td>
                    <td class="muted" colSpan={3}>
                      {f.count} {f.count === 1 ? props.noun : plural}
                    </td>
                  </tr>
                ))}
                {props.entries.map((e) => (
                  <tr key={e.path}>
                    <td>
                      <a class="title" href={e.href}>{e.title}</a>
                      <div class="muted small mono">{e.path}</div>
                    </td>
                    <td>
                      {e.status ? <StatusBadge status={e.status} /> : "—"}
                      {e.tag && <span class="badge">{e.tag}</span>}
                    </td>
                    <td>{e.current_version === null ? "—" : `v${e.current_version}`}</td>
                    <td class="muted">
                      <Ago at={e.updated_at} now={props.now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </section>
      <Pager
        base={props.base}
        query={{ prefix: props.prefix || undefined, q: props.q || undefined }}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </>
  );
}
