import { Card } from "./card.tsx";
/**
 * Promotion in the browser (docs/promotion.md): the pipeline page's Promote control, and the
 * parts of `/pipelines/{id}/promote` — what a push would change on the target with its breaking
 * changes first, and what a push did change (a refusal is `promote_refusal.tsx`'s). The shapes
 * are the REST answers of `GET /promotion/preview` and `POST /promotion/promote`.
 */
import { type ComponentChildren, Fragment } from "preact";
import { ScrollTable } from "./head.tsx";

type Change = "added" | "updated" | "unchanged" | "changed";

export interface EntryChange {
  name: string;
  target_version: number | null;
  new_version: number;
  change: "added" | "updated" | "unchanged";
}

export interface ItemChange {
  name: string;
  change: string;
  from?: string;
  to?: string;
  breaking: boolean;
}

export interface PipelinePreviewView extends EntryChange {
  published_on_target: boolean;
  parameters: ItemChange[];
  result_columns: ItemChange[] | null;
  breaking: boolean;
}

export interface EndpointChange {
  path_pattern: string;
  pipeline_name: string;
  change: "added" | "changed" | "unchanged";
}

/** `GET /promotion/preview` data. */
export interface PreviewView {
  target: string;
  workspace: string;
  pipelines: PipelinePreviewView[];
  templates: EntryChange[];
  endpoints: EndpointChange[];
  breaking: boolean;
}

/** `POST /promotion/promote` data. */
export interface OutcomeView {
  target: string;
  workspace: string;
  pipeline: { name: string; version: number };
  previous_version: number | null;
  pushed: { applied: { templates: number; pipelines: number; endpoints: number } };
  changes: {
    pipelines: EntryChange[];
    templates: EntryChange[];
    endpoints: EndpointChange[];
  };
}

/** The pipeline page's control: only drawn for a promoter, with a target, on a released pipeline. */
export function PromoteLink(props: { id: string; version: number }) {
  return (
    <a class="btn" href={`/pipelines/${props.id}/promote`}>
      Promote v{props.version}
    </a>
  );
}

const LABEL: Record<Change, [string, string]> = {
  added: ["new", "ok"],
  updated: ["updated", "info"],
  changed: ["moves", "warn"],
  unchanged: ["already there", ""],
};

/** One entry's change as a badge; `done` words it as having happened. */
function ChangeBadge(props: { change: Change; done?: boolean }) {
  const [label, tone] = LABEL[props.change];
  const text = !props.done
    ? label
    : { added: "created", updated: "updated", changed: "moved", unchanged: "left as it was" }[
      props.change
    ];
  return <span class={`badge ${tone}`.trim()}>{text}</span>;
}

/** A path-like name that may wrap after each slash on a narrow screen, never inside a part. */
function Path(props: { text: string }) {
  return (
    <>
      {props.text.split("/").map((part, i) => (
        <Fragment key={i}>
          {i > 0 && (
            <>
              /<wbr />
            </>
          )}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/** The target's version before the push and the one sent, in one cell. */
function Versions(props: { row: EntryChange }) {
  const r = props.row;
  const before = r.target_version === null
    ? <span class="null">none</span>
    : <>v{r.target_version}</>;
  return <td class="mono small versions">{before} → v{r.new_version}</td>;
}

/** A parameter or column change in words. */
export function what(c: ItemChange): string {
  switch (c.change) {
    case "added":
      return `added${c.to ? ` (${c.to})` : ""}`;
    case "removed":
      return `removed${c.from ? ` (was ${c.from})` : ""}`;
    case "retyped":
      return `retyped from ${c.from} to ${c.to}`;
    case "now_required":
      return "now required, with no default";
    default:
      return c.change;
  }
}

/** One parameter or column change, flagged when an existing caller would fail. */
function ItemLine(props: { kind: string; item: ItemChange; flag?: boolean }) {
  const c = props.item;
  return (
    <li>
      {props.flag !== false && c.breaking && (
        <>
          <span class="badge bad">breaking</span>
          {" "}
        </>
      )}
      {props.kind} <code>{c.name}</code> {what(c)}
    </li>
  );
}

/** A deployment's name opening a sentence. */
export const opening = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Every breaking change of a preview, pipeline by pipeline: the first thing the page shows. */
export function BreakingBanner(props: { preview: PreviewView }) {
  const p = props.preview;
  if (!p.breaking) return null;
  const rows = p.pipelines.filter((x) => x.breaking);
  return (
    <section class="banner error breaking-banner" role="alert" aria-labelledby="breaking-title">
      <h2 id="breaking-title">Breaking changes</h2>
      <p>
        {opening(p.target)} publishes endpoints over{" "}
        {rows.length === 1 ? "this pipeline" : "these pipelines"}; their existing callers would fail
        after this push:
      </p>
      {rows.map((r) => (
        <div key={r.name}>
          <strong class="mono">{r.name}</strong> v{r.target_version} → v{r.new_version}
          <ul>
            {r.parameters.filter((c) => c.breaking).map((c) => (
              <ItemLine key={`p-${c.name}`} kind="parameter" item={c} flag={false} />
            ))}
            {(r.result_columns ?? []).filter((c) => c.breaking).map((c) => (
              <ItemLine key={`c-${c.name}`} kind="column" item={c} flag={false} />
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

/** Counts per kind, as "2 new · 1 updated". */
function tally(rows: { change: Change }[]): string {
  const n = (c: Change) => rows.filter((r) => r.change === c).length;
  const parts = [
    [n("added"), "new"],
    [n("updated") + n("changed"), "updated"],
    [n("unchanged"), "already there"],
  ].filter(([count]) => count) as [number, string][];
  return parts.length === 0 ? "none" : parts.map(([c, w]) => `${c} ${w}`).join(" · ");
}

/** Three figures: how many pipelines, templates and endpoints the push carries, and how. */
export function PushSummary(
  props: {
    pipelines: { change: Change }[];
    templates: { change: Change }[];
    endpoints: { change: Change }[];
  },
) {
  const stat = (label: string, rows: { change: Change }[]) => (
    <div class="card stat">
      <div class="label">{label}</div>
      <div class="value">{rows.length}</div>
      <div class="muted small">{tally(rows)}</div>
    </div>
  );
  return (
    <div class="grid cols-3 promote-summary">
      {stat("Pipelines", props.pipelines)}
      {stat("Templates", props.templates)}
      {stat("Endpoints", props.endpoints)}
    </div>
  );
}

/** What each pipeline becomes on the target; with `preview`, its parameter and column changes. */
function PipelinesTable(
  props: { target: string; rows: (EntryChange | PipelinePreviewView)[]; done?: boolean },
) {
  return (
    <ScrollTable
      class="promote-table"
      cols={["Pipeline", `${opening(props.target)} → sent`, "Change"]}
    >
      {props.rows.map((r) => {
        const detail = "parameters" in r ? r : undefined;
        return (
          <tr key={r.name} class={detail?.breaking ? "breaking" : undefined}>
            <td>
              <span class="mono">
                <Path text={r.name} />
              </span>
              {detail && <PipelineChanges row={detail} target={props.target} />}
            </td>
            <Versions row={r} />
            <td>
              <ChangeBadge change={r.change} done={props.done} />
              {detail?.breaking && (
                <>
                  {" "}
                  <span class="badge bad">breaking</span>
                </>
              )}
            </td>
          </tr>
        );
      })}
    </ScrollTable>
  );
}

/** What changes for callers of an updated pipeline; a new one has no callers there yet. */
function PipelineChanges(props: { row: PipelinePreviewView; target: string }) {
  const r = props.row;
  if (r.change !== "updated") return null;
  const items = [
    ...r.parameters.map((c) => <ItemLine key={`p-${c.name}`} kind="parameter" item={c} />),
    ...(r.result_columns ?? []).map((c) => <ItemLine key={`c-${c.name}`} kind="column" item={c} />),
  ];
  const unknownColumns = r.result_columns === null;
  if (items.length === 0 && !unknownColumns) return null;
  return (
    <>
      {items.length > 0 && <ul class="promote-items">{items}</ul>}
      {unknownColumns && (
        <div class="muted small">
          Result columns not compared: v{r.new_version} has not run here, or v{r.target_version}
          {" "}
          has not run on {props.target}.
        </div>
      )}
    </>
  );
}

/** A table of entries that travel: its name first, its change last, what `middle` draws between. */
function EntryTable<R extends { change: Change }>(props: {
  cols: string[];
  rows: R[];
  empty: string;
  name: (r: R) => string;
  middle: (r: R) => ComponentChildren;
  done?: boolean;
}) {
  if (props.rows.length === 0) return <div class="empty">{props.empty}</div>;
  return (
    <ScrollTable class="promote-table" cols={props.cols}>
      {props.rows.map((r) => (
        <tr key={props.name(r)}>
          <td class="mono">
            <Path text={props.name(r)} />
          </td>
          {props.middle(r)}
          <td>
            <ChangeBadge change={r.change} done={props.done} />
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}

/** The three tables of a push: before it (`preview`) or after it (`outcome`). */
export function PushEntries(
  props: {
    target: string;
    pipelines: (EntryChange | PipelinePreviewView)[];
    templates: EntryChange[];
    endpoints: EndpointChange[];
    done?: boolean;
  },
) {
  return (
    <>
      <Card
        class="section-gap"
        title="Pipelines"
        note="the release and the child pipelines it pins"
      >
        <PipelinesTable target={props.target} rows={props.pipelines} done={props.done} />
      </Card>
      <div class="grid cols-2 section-gap promote-pair">
        <Card title="Templates" note="the versions the nodes pin">
          <EntryTable
            cols={["Template", `${opening(props.target)} → sent`, "Change"]}
            rows={props.templates}
            empty="No template versions travel with this pipeline."
            name={(r) => r.name}
            middle={(r) => <Versions row={r} />}
            done={props.done}
          />
        </Card>
        <Card title="Endpoints" note="with their key bindings, by key name">
          <EntryTable
            cols={["Path", "Pipeline", "Change"]}
            rows={props.endpoints}
            empty="No published endpoint serves these pipelines here."
            name={(r) => r.path_pattern}
            middle={(r) => (
              <td class="mono small">
                <Path text={r.pipeline_name} />
              </td>
            )}
            done={props.done}
          />
        </Card>
      </div>
    </>
  );
}
