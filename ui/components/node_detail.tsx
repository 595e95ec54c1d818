import type { ComponentChildren } from "preact";
import type { NodeSqlView } from "../../src/executions/mod.ts";

/** What a node's disclosure shows about its rows, by where they went. */
function Rows(props: {
  data: NodeSqlView;
  runId: string;
  resultKept: boolean;
  child?: { execution_id: string } | null;
  parent?: { execution_id: string; node_id: string } | null;
}): ComponentChildren {
  const out = props.data.output;
  if (props.data.type === "PIPELINE") {
    return props.child
      ? (
        <p>
          Its rows came from its <a href={`/runs/${props.child.execution_id}`}>child run</a>
          {out?.target === "tempdb"
            ? (
              <>
                , staged as <code>{out.table}</code> for the nodes after it.
              </>
            )
            : "."}
        </p>
      )
      : <p class="muted">It did not start a child run.</p>;
  }
  if (props.data.type === "CALCULATOR") {
    return (
      <p class="muted">A calculator derives parameters for the nodes after it; it reads no rows.</p>
    );
  }
  if (!out || out.target === "none") return <p class="muted">This node delivers no rows.</p>;
  if (out.target === "caller" && props.parent) {
    return (
      <p>
        Its rows went to node <code>{props.parent.node_id}</code> of the{" "}
        <a href={`/runs/${props.parent.execution_id}`}>parent run</a>, which started this one.
      </p>
    );
  }
  if (out.target === "caller") {
    return props.resultKept
      ? (
        <p>
          Its rows are the run's result:{" "}
          <a href={`/runs/${props.runId}/result`}>open the result</a>.
        </p>
      )
      : <p class="muted">Its rows were the run's result, which is no longer kept.</p>;
  }
  if (out.target === "tempdb") {
    // docs/decisions.md#staged-rows-are-not-kept: the staging database is closed with the run.
    return (
      <p class="muted">
        Its rows were staged as <code>{out.table}</code>{" "}
        in the run's private staging database, which is dropped when the run ends; staged rows are
        not kept, so none can be shown here.
      </p>
    );
  }
  return (
    <p class="muted">
      Its rows were written to <code>{out.datasource}</code>
      {out.table
        ? (
          <>
            {" "}(table <code>{out.table}</code>)
          </>
        )
        : null}; the run keeps no copy.
    </p>
  );
}

/** The body of a node's disclosure on the run view (`/partials/runs/{id}/nodes/{node}`). */
export function NodeDetail(props: {
  runId: string;
  data: NodeSqlView | null;
  /** Why nothing could be rendered (the pinned version is gone), when `data` is null. */
  missing?: string;
  resultKept: boolean;
  child?: { execution_id: string } | null;
  /** The run whose PIPELINE node started this one: a caller node's rows went there. */
  parent?: { execution_id: string; node_id: string } | null;
}) {
  const d = props.data;
  if (!d) return <p class="muted">{props.missing}</p>;
  const derived = Object.entries(d.derived);
  return (
    <div class="node-detail-body">
      {d.sql !== null && (
        <>
          <p class="muted small">
            {d.template
              ? (
                <>
                  Rendered from template{" "}
                  <a href={`/templates/view?id=${encodeURIComponent(d.template.id)}`} class="mono">
                    {d.template.id}
                  </a>{" "}
                  v{d.template.version} with this run's parameters.
                </>
              )
              : "The node's own statement."} Each <code>:name</code>{" "}
            is bound as a value, never written into the text.
          </p>
          <pre class="sql" data-node-sql tabindex={0} aria-label={`SQL of ${d.node_id}`}>
            <code>{d.sql}</code>
          </pre>
          {d.bound.length > 0 && (
            <table class="bound-values">
              <caption>Bound values</caption>
              <thead>
                <tr>
                  <th scope="col">Placeholder</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {d.bound.map((b) => (
                  <tr key={b.name}>
                    <th scope="row" class="mono">:{b.name}</th>
                    <td class="mono">{JSON.stringify(b.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {derived.length > 0 && (
        <dl class="params">
          {derived.map(([k, v]) => (
            <div key={k}>
              <dt class="mono">{k}</dt>
              <dd class="mono">{JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      <Rows
        data={d}
        runId={props.runId}
        resultKept={props.resultKept}
        child={props.child}
        parent={props.parent}
      />
    </div>
  );
}
