import { Card } from "../components/card.tsx";
import type { DagNode } from "../components/dag.tsx";
import { type Crumb, PageHead } from "../components/page_head.tsx";
import { ParameterForm } from "../components/parameter_form.tsx";
import { ResultAssets } from "../components/result_chart.tsx";
import type { ResultPage } from "../components/result_table.tsx";
import { type RunNodesInfo, type RunRecord, RunView } from "../components/run_view.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { ParameterView } from "../../src/pipelines/mod.ts";
import { assetUrl } from "../static_files.ts";

function trail(pipelineId: string, name: string): Crumb[] {
  return [["/pipelines", "Pipelines"], [`/pipelines/${pipelineId}`, name]];
}

/** `/pipelines/{id}/run`: the parameter form; the run's live view replaces it once started. */
export function RunFormPage(props: {
  ctx: ShellContext;
  pipeline: { id: string; name: string; title: string; version: number; status: string };
  parameters: Record<string, ParameterView>;
}) {
  const p = props.pipeline;
  return (
    <AppShell title={`Run ${p.title}`} nav="pipelines" ctx={props.ctx}>
      <script src={assetUrl("/js/run.js")} defer></script>
      <ResultAssets />
      <PageHead trail={trail(p.id, p.name)} title={`Run ${p.title}`}>
        <p>
          Runs v{p.version} ({p.status.toLowerCase()}). Progress streams in as it happens.
        </p>
      </PageHead>
      <Card title="Parameters" data-run-start={`/api/v1/pipelines/${p.id}/execute`}>
        <ParameterForm
          action={`/pipelines/${p.id}/run`}
          csrf={props.ctx.csrf}
          parameters={props.parameters}
        />
      </Card>
      <div id="run-live" class="section-gap" />
      <noscript>
        <p class="banner">Running a pipeline streams its progress, which needs JavaScript.</p>
      </noscript>
    </AppShell>
  );
}

/** `/runs/{id}`: one run, live while it runs, else as stored. */
export function RunPage(props: {
  ctx: ShellContext;
  now: Date;
  run: RunRecord;
  nodes: DagNode[];
  result: ResultPage | null;
  canCancel: boolean;
  info: RunNodesInfo;
  /** The run whose PIPELINE node started this one, when it is a child run. */
  parent: { execution_id: string; node_id: string; pipeline_name: string } | null;
}) {
  const { parent } = props;
  return (
    <AppShell title={`Run of ${props.run.pipeline_name}`} nav="runs" ctx={props.ctx}>
      <script src={assetUrl("/js/run.js")} defer></script>
      <ResultAssets />
      <PageHead
        trail={trail(props.run.pipeline_id, props.run.pipeline_name)}
        title={`Run of ${props.run.pipeline_name}`}
        actions={<a class="btn" href={`/pipelines/${props.run.pipeline_id}/run`}>Run again</a>}
      >
        {parent && (
          <p data-parent-run>
            Child run of node <span class="mono">{parent.node_id}</span> in{" "}
            <a href={`/runs/${parent.execution_id}`}>a run of {parent.pipeline_name}</a>
          </p>
        )}
        <p class="mono small">{props.run.execution_id}</p>
      </PageHead>
      <RunView
        run={props.run}
        nodes={props.nodes}
        now={props.now}
        result={props.result}
        canCancel={props.canCancel}
        info={props.info}
      />
    </AppShell>
  );
}
