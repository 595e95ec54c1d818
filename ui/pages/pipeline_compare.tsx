import { Card } from "../components/card.tsx";
import type { DiffLine } from "../components/line_diff.ts";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { Head } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";

export interface ParameterChange {
  name: string;
  change: "added" | "removed" | "changed";
  before?: string;
  after?: string;
}

/** `/pipelines/{id}/compare?from=&to=`: what changed between two versions. */
export function PipelineComparePage(props: {
  ctx: ShellContext;
  pipeline: { id: string; name: string };
  from: number;
  to: number;
  versions: number[];
  parameters: ParameterChange[];
  diff: DiffLine[];
}) {
  const p = props.pipeline;
  const changed = props.diff.filter((l) => l.op !== " ").length;
  return (
    <AppShell title={`Compare ${p.name}`} nav="pipelines" ctx={props.ctx}>
      <PageHead
        trail={[["/pipelines", "Pipelines"], [`/pipelines/${p.id}`, p.name]]}
        title={`v${props.from} → v${props.to}`}
        side={
          <form method="get" action={`/pipelines/${p.id}/compare`} class="toolbar">
            <label class="muted small" for="cmp-from">From</label>
            <select id="cmp-from" name="from">
              {props.versions.map((v) => (
                <option key={v} value={v} selected={v === props.from}>v{v}</option>
              ))}
            </select>
            <label class="muted small" for="cmp-to">to</label>
            <select id="cmp-to" name="to">
              {props.versions.map((v) => (
                <option key={v} value={v} selected={v === props.to}>v{v}</option>
              ))}
            </select>
            <button type="submit">Compare</button>
          </form>
        }
      >
        <p>{changed === 0 ? "The two versions are identical." : `${changed} lines differ.`}</p>
      </PageHead>
      <Card title="Parameters">
        {props.parameters.length === 0 ? <div class="empty">No parameter changed.</div> : (
          <table>
            <Head cols={["Parameter", "Change", "Before", "After"]} />
            <tbody>
              {props.parameters.map((c) => (
                <tr key={c.name}>
                  <td class="mono">{c.name}</td>
                  <td>
                    <span
                      class={`badge ${
                        c.change === "removed" ? "bad" : c.change === "added" ? "ok" : "warn"
                      }`}
                    >
                      {c.change}
                    </span>
                  </td>
                  <td class="mono small">{c.before ?? "—"}</td>
                  <td class="mono small">{c.after ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
      <Card class="section-gap" title="Body" note="parameters, nodes, settings and checks">
        {/* It scrolls sideways: focusable, so a keyboard can scroll it too. */}
        <pre class="diff" tabIndex={0} role="region" aria-label="Body, line by line">
          {props.diff.map((l, i) => (
          <span key={i} class={l.op === "+" ? "add" : l.op === "-" ? "del" : undefined}>
            {l.op} {l.text}{"\n"}
          </span>
        ))}
        </pre>
      </Card>
    </AppShell>
  );
}
