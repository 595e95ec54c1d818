/**
 * A layered left-to-right layout for a pipeline's DAG, computed on the server so the graph is
 * plain SVG: each node's layer is one past its deepest dependency, nodes within a layer are
 * ordered by the mean position of their dependencies (one barycentre sweep is enough for the
 * few dozen nodes a pipeline has), and edges are cubic curves between the layers.
 */
export interface DagNodeIn {
  id: string;
  depends_on?: readonly string[];
}

export interface PlacedNode {
  id: string;
  layer: number;
  x: number;
  y: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  path: string;
}

export interface DagLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const NODE_W = 184;
export const NODE_H = 58;
const GAP_X = 64;
const GAP_Y = 22;
const PAD = 12;

export function layoutDag(nodes: readonly DagNodeIn[]): DagLayout {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const layerOf = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    // A cycle or an unknown dependency cannot be saved, but a drawing must never loop.
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const value = deps.length ? 1 + Math.max(...deps.map(layerOf)) : 0;
    visiting.delete(id);
    layer.set(id, value);
    return value;
  };
  const layers: string[][] = [];
  for (const n of nodes) (layers[layerOf(n.id)] ??= []).push(n.id);

  const row = new Map<string, number>();
  for (const ids of layers) {
    if (!ids) continue;
    const mean = (id: string) => {
      const deps = (byId.get(id)?.depends_on ?? []).filter((d) => row.has(d));
      return deps.length ? deps.reduce((s, d) => s + row.get(d)!, 0) / deps.length : Infinity;
    };
    const order = ids.map((id, i) => ({ id, key: mean(id), i }))
      .sort((a, b) => (a.key - b.key) || (a.i - b.i));
    order.forEach((o, i) => row.set(o.id, i));
  }

  const tallest = Math.max(1, ...layers.map((l) => l?.length ?? 0));
  const height = PAD * 2 + tallest * NODE_H + (tallest - 1) * GAP_Y;
  const placed = new Map<string, PlacedNode>();
  layers.forEach((ids, l) => {
    if (!ids) return;
    const span = ids.length * NODE_H + (ids.length - 1) * GAP_Y;
    const top = (height - span) / 2;
    for (const id of ids) {
      placed.set(id, {
        id,
        layer: l,
        x: PAD + l * (NODE_W + GAP_X),
        y: top + row.get(id)! * (NODE_H + GAP_Y),
      });
    }
  });
  const edges: PlacedEdge[] = [];
  for (const n of nodes) {
    for (const d of n.depends_on ?? []) {
      const a = placed.get(d);
      const b = placed.get(n.id);
      if (!a || !b) continue;
      const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
      const bend = Math.max(24, (x2 - x1) / 2);
      edges.push({
        from: d,
        to: n.id,
        path: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2 - 6},${y2}`,
      });
    }
  }
  return {
    nodes: nodes.map((n) => placed.get(n.id)!),
    edges,
    width: PAD * 2 + layers.length * NODE_W + Math.max(0, layers.length - 1) * GAP_X,
    height,
  };
}
