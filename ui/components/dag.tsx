import { layoutDag, NODE_H, NODE_W } from "./dag_layout.ts";

export interface DagNode {
  id: string;
  type: string;
  depends_on?: string[];
  source?: string;
  template?: { id: string; version: number };
  output?: { target: string; table?: string; datasource?: string };
}

/** The second line of a node's box: what it reads and where its rows go. */
function subtitle(n: DagNode): string {
  const from = n.type === "PIPELINE"
    ? "child pipeline"
    : n.type === "CALCULATOR"
    ? "calculator"
    : n.source ?? "";
  const to = n.output?.target === "tempdb"
    ? ` → ${n.output.table ?? "staging"}`
    : n.output?.target === "datasource"
    ? ` → ${n.output.datasource ?? ""}`
    : "";
  return `${n.type} · ${from}${to}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/**
 * A pipeline's graph as SVG, drawn on the server. `states` colours nodes during a run
 * (`data-node` lets the live view recolour them as events arrive).
 */
export function Dag(props: { nodes: DagNode[]; states?: Record<string, string>; label: string }) {
  const g = layoutDag(props.nodes);
  const byId = new Map(props.nodes.map((n) => [n.id, n]));
  return (
    <svg
      class="dag"
      viewBox={`0 0 ${g.width} ${g.height}`}
      width={g.width}
      height={g.height}
      role="img"
      aria-label={props.label}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="8"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" class="dag-arrow" />
        </marker>
      </defs>
      {g.edges.map((e) => (
        <path key={`${e.from}-${e.to}`} d={e.path} class="dag-edge" marker-end="url(#arrow)" />
      ))}
      {g.nodes.map((p) => {
        const n = byId.get(p.id)!;
        const state = props.states?.[p.id] ?? "idle";
        return (
          <g
            key={p.id}
            class={`dag-node type-${n.type.toLowerCase()} state-${state}`}
            data-node={p.id}
            transform={`translate(${p.x},${p.y})`}
          >
            <title>{`${n.id}: ${subtitle(n)}`}</title>
            <rect width={NODE_W} height={NODE_H} rx="9" />
            <rect class="dag-kind" width="5" height={NODE_H} rx="2" />
            <text x="16" y="24" class="dag-title">{clip(n.id, 22)}</text>
            <text x="16" y="43" class="dag-sub">{clip(subtitle(n), 28)}</text>
          </g>
        );
      })}
    </svg>
  );
}
