import { Card } from "../components/card.tsx";
import { Dag, type DagNode } from "../components/dag.tsx";
import { entryTrail } from "../components/folder_list.tsx";
import { PageHead } from "../components/page_head.tsx";
import { StatusBadge } from "../components/status.tsx";
import { type VersionRow, VersionsCard } from "../components/versions_card.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { Head } from "../components/head.tsx";
import { ConfirmLink } from "../components/confirm.tsx";
import { type PipelineGuard, PipelineGuardDialog } from "../components/version_guard.tsx";
import { PromoteLink } from "../components/promote_panel.tsx";
import { PublishedAt } from "../components/endpoint_parts.tsx";
import type { ParameterView } from "../../src/pipelines/mod.ts";

export interface PipelineNodeView extends DagNode {
  sql?: string;
  description?: string;
  pipeline?: { id: string; version?: number };
  /** The title of the pipeline a PIPELINE node runs; absent when it is no longer stored. */
  pipeline_title?: string;
  calculator?: { name: string };
  /** The pinned template's body, when the node renders one. */
  template_body?: string;
}

export interface PipelinePageProps {
  ctx: ShellContext;
  now: Date;
  pipeline: {
    id: string;
    name: string;
    display_name?: string;
    description?: string;
    version: number;
    status: string;
    current_version: number | null;
    updated_at: string;
    body_hash: string;
    parameters: Record<string, ParameterView>;
    settings?: Record<string, unknown>;
    nodes: PipelineNodeView[];
  };
  versions: VersionRow[];
  /** The verbs the viewer's role allows; the page draws nothing else. */
  can: { execute: boolean; author: boolean; release: boolean; restore: boolean; switch: boolean };
  flash: {
    saved?: boolean;
    released?: number;
    discarded?: boolean;
    /** `restore-3` or `current-2`: the version move just made. */
    moved?: string;
    error?: string;
  };
  /** The act asked about (`?confirm=`), drawn as its dialog. */
  guard?: PipelineGuard;
  /** A promoter, on a deployment with a promotion target (docs/promotion.md). */
  promote?: boolean;
  /**
   * Publishing, for those the matrix lets manage endpoints: whether a release exists to publish,
   * and the endpoints over this pipeline.
   */
  publishing?: { released: boolean; endpoints: { path_pattern: string; enabled: boolean }[] };
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** `/pipelines/{id}`: the working version — graph, parameters, nodes — and every version. */
export function PipelinePage(props: PipelinePageProps) {
  const p = props.pipeline;
  const ask = (act: string) => `/pipelines/${p.id}?confirm=${act}`;
  return (
    <AppShell title={p.display_name ?? shortName(p.name)} nav="pipelines" ctx={props.ctx}>
      <PageHead
        trail={entryTrail("/pipelines", "Pipelines", p.name)}
        title={
          <>
            {p.display_name ?? shortName(p.name)} <StatusBadge status={p.status} />
          </>
        }
        actions={
          <>
            <a class="btn" href={`/api/v1/pipelines/${p.id}/export`}>Export</a>
            {props.promote && p.current_version !== null && (
              <PromoteLink id={p.id} version={p.current_version} />
            )}
            {props.can.author && <a class="btn" href={`/pipelines/${p.id}/edit`}>Edit</a>}
            {!props.can.author && props.can.execute && (
              <a class="btn" href={`/pipelines/${p.id}/edit`}>View definition</a>
            )}
            {props.can.author && p.status === "DRAFT" && (
              <ConfirmLink class="btn danger" href={ask("discard-draft")}>
                Discard draft
              </ConfirmLink>
            )}
            {props.can.release && p.status === "DRAFT" && (
              <ConfirmLink class="btn" href={ask("release")}>Release v{p.version}</ConfirmLink>
            )}
            {props.publishing?.released && (
              <a class="btn" href={`/pipelines/${p.id}/publish`}>Publish as endpoint</a>
            )}
            {props.can.execute && <a class="btn primary" href={`/pipelines/${p.id}/run`}>Run</a>}
          </>
        }
      >
        <p class="mono small">{p.name} · v{p.version}</p>
        {props.publishing && <PublishedAt endpoints={props.publishing.endpoints} />}
      </PageHead>
      {props.flash.saved && <div class="banner ok" role="status">Draft saved.</div>}
      {props.flash.released && (
        <div class="banner ok" role="status">
          Released v{props.flash.released}; its release checks passed.
        </div>
      )}
      {props.flash.discarded && <div class="banner ok" role="status">Draft discarded.</div>}
      {props.flash.moved && (
        <div class="banner ok" role="status">
          {props.flash.moved.startsWith("restore")
            ? `Restored v${props.flash.moved.split("-")[1]}.`
            : props.flash.moved.startsWith("discard")
            ? `Discarded v${props.flash.moved.split("-")[1]}.`
            : `v${props.flash.moved.split("-")[1]} is now the current release.`}
        </div>
      )}
      {props.flash.error && <div class="banner error" role="alert">{props.flash.error}</div>}
      {p.description && <p class="lead">{p.description}</p>}

      <Card title="Graph" note={<>{p.nodes.length} node{p.nodes.length === 1 ? "" : "s"}</>}>
        <div class="dag-wrap">
          <Dag nodes={p.nodes} label={`The nodes of ${p.name} and their dependencies`} />
        </div>
      </Card>

      <div class="grid cols-2 section-gap">
        <Card title="Parameters">
          <Parameters parameters={p.parameters} />
        </Card>
        <VersionsCard
          versions={props.versions}
          current={p.current_version}
          now={props.now}
          actions={(v) => (
            <>
              {v.version !== p.version && (
                <a href={`/pipelines/${p.id}/compare?from=${v.version}&to=${p.version}`}>
                  Compare
                </a>
              )}
              {props.can.switch && v.status === "RELEASED" && v.version !== p.current_version && (
                <VersionMove href={ask(`current-${v.version}`)} v={v.version}>
                  Make current
                </VersionMove>
              )}
              {props.can.restore && v.status === "RELEASED" && (
                <VersionMove href={ask(`discard-${v.version}`)} v={v.version}>
                  Discard
                </VersionMove>
              )}
              {props.can.restore && v.status === "DISCARDED" && (
                <VersionMove href={ask(`restore-${v.version}`)} v={v.version}>
                  Restore
                </VersionMove>
              )}
            </>
          )}
        />
      </div>

      <Card class="section-gap" title="Nodes">
        <div class="nodes">
          {p.nodes.map((n) => <NodeCard key={n.id} node={n} />)}
        </div>
      </Card>
      {props.guard && <PipelineGuardDialog id={p.id} csrf={props.ctx.csrf} guard={props.guard} />}
    </AppShell>
  );
}

/** A version act in the versions card; it asks first (`?confirm=`). */
function VersionMove(props: { href: string; v: number; children: string }) {
  return (
    <ConfirmLink href={props.href} class="link" label={`${props.children} v${props.v}`}>
      {props.children}
    </ConfirmLink>
  );
}

function Parameters(props: { parameters: Record<string, ParameterView> }) {
  const entries = Object.entries(props.parameters);
  if (entries.length === 0) return <div class="empty">This pipeline takes no parameters.</div>;
  return (
    <table>
      <Head cols={["Name", "Type", "Default"]} />
      <tbody>
        {entries.map(([name, d]) => (
          <tr key={name}>
            <td>
              <span class="mono">{name}</span>
              {d.required && <span class="badge warn">required</span>}
              {d.derived && <span class="badge">derived</span>}
              {d.description && <div class="muted small">{d.description}</div>}
            </td>
            <td class="mono small">
              {d.type}
              {d.enum && <div class="muted">{d.enum.map(String).join(" | ")}</div>}
            </td>
            <td class="mono small">
              {d.default === undefined ? <span class="null">none</span> : JSON.stringify(d.default)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function NodeCard(props: { node: PipelineNodeView }) {
  const n = props.node;
  const sql = n.sql ?? n.template_body;
  return (
    <article class="node" id={`node-${n.id}`}>
      <header>
        <h3 class="mono">{n.id}</h3>
        <span class={`badge node-type type-${n.type.toLowerCase()}`}>{n.type}</span>
        {n.source && <span class="muted small">reads {n.source}</span>}
        {n.depends_on?.length
          ? <span class="muted small">after {n.depends_on.join(", ")}</span>
          : null}
      </header>
      {n.description && <p class="muted">{n.description}</p>}
      {n.template && (
        <p class="small">
          Template{" "}
          <a href={`/templates/view?id=${encodeURIComponent(n.template.id)}`} class="mono">
            {n.template.id}
          </a>{" "}
          v{n.template.version}
        </p>
      )}
      {n.pipeline && (
        <p class="small">
          Runs pipeline{" "}
          <a href={`/pipelines/${n.pipeline.id}`} class={n.pipeline_title ? undefined : "mono"}>
            {n.pipeline_title ?? n.pipeline.id}
          </a>
          {n.pipeline.version ? ` v${n.pipeline.version}` : " (current release)"}
        </p>
      )}
      {n.calculator && (
        <p class="small">
          Calculator <code>{n.calculator.name}</code>
        </p>
      )}
      {sql && <pre class="sql"><code>{sql}</code></pre>}
    </article>
  );
}
