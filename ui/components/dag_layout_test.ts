import { deepEqual, equal, ok } from "node:assert/strict";
import { layoutDag, NODE_H, NODE_W } from "./dag_layout.ts";

Deno.test("layoutDag() puts each node one layer past its deepest dependency", () => {
  const g = layoutDag([
    { id: "a" },
    { id: "b" },
    { id: "c", depends_on: ["a"] },
    { id: "d", depends_on: ["c", "b"] },
  ]);
  deepEqual(g.nodes.map((n) => [n.id, n.layer]), [["a", 0], ["b", 0], ["c", 1], ["d", 2]]);
  equal(g.edges.length, 3);
  ok(g.width >= 3 * NODE_W && g.height >= 2 * NODE_H);
});

Deno.test("layoutDag() never overlaps two nodes of a layer, and survives a cycle", () => {
  const wide = layoutDag(Array.from({ length: 50 }, (_, i) => ({
    id: `n${i}`,
    depends_on: i < 10 ? [] : [`n${i % 10}`, `n${(i * 7) % 10}`],
  })));
  const spots = new Set(wide.nodes.map((n) => `${n.x},${n.y}`));
  equal(spots.size, 50);
  for (const n of wide.nodes) ok(n.y + NODE_H <= wide.height && n.x + NODE_W <= wide.width);
  const cyclic = layoutDag([{ id: "a", depends_on: ["b"] }, { id: "b", depends_on: ["a"] }]);
  equal(cyclic.nodes.length, 2);
});
