import { Card } from "./card.tsx";
import type { ComponentChildren } from "preact";
import { Ago, StatusBadge } from "./status.tsx";

export interface VersionRow {
  version: number;
  status: string;
  created_by_name: string;
  created_at: string;
  released_at: string | null;
}

/** Every version of a pipeline or template, newest first, with optional per-row actions. */
export function VersionsCard(props: {
  versions: VersionRow[];
  current: number | null;
  now: Date;
  actions?: (v: VersionRow) => ComponentChildren;
}) {
  return (
    <Card
      title="Versions"
      note={props.current === null ? "never released" : `current v${props.current}`}
    >
      <table>
        <thead>
          <tr>
            <th>Version</th>
            <th>Status</th>
            <th>By</th>
            <th>When</th>
            {props.actions && (
              <th>
                <span class="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {props.versions.map((v) => (
            <tr key={v.version}>
              <td>
                v{v.version}
                {v.version === props.current && <span class="badge info">current</span>}
              </td>
              <td>
                <StatusBadge status={v.status} />
              </td>
              <td>{v.created_by_name}</td>
              <td class="muted">
                <Ago at={v.released_at ?? v.created_at} now={props.now} />
              </td>
              {props.actions && <td class="row-actions">{props.actions(v)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
