/**
 * `pipelines_execute_node` (docs/decisions.md#running-one-node): the body that runs one node.
 *
 * Decided here: a node alone would find none of the staged tables it reads, so the run is the
 * node together with everything it depends on (transitively), each as a full run would execute
 * it; the chosen node's rows go to the caller instead of its own output (a DQL or PIPELINE node
 * writing to a staged table or a datasource shows what it would write, and writes nothing), so
 * the tool can return them. A dependency that delivers to the caller is left out: the caller's
 * rows are never staged, so nothing downstream can read them. A DML, DDL or CALCULATOR node runs
 * as written and delivers no rows. Nodes that the chosen one does not need do not run.
 */
import { AppError } from "../errors/mod.ts";
import { isCallerNode, type PipelineBody, type PipelineNode } from "./body.ts";

export function nodeSubset(body: PipelineBody, nodeId: string): PipelineBody {
  const byId = new Map(body.nodes.map((n) => [n.id, n]));
  const target = byId.get(nodeId);
  if (!target) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "node_id",
      reason: `no node ${String(nodeId).slice(0, 64)} in this version (nodes: ${
        body.nodes.map((n) => n.id).join(", ")
      })`,
    });
  }
  const needed = new Set<string>();
  const visit = (id: string) => {
    if (needed.has(id)) return;
    needed.add(id);
    for (const dep of byId.get(id)!.depends_on ?? []) visit(dep);
  };
  visit(nodeId);
  const dropped = new Set(
    [...needed].filter((id) => id !== nodeId && isCallerNode(byId.get(id)!)),
  );
  const nodes: PipelineNode[] = [];
  for (const n of body.nodes) {
    if (!needed.has(n.id) || dropped.has(n.id)) continue;
    const depends = n.depends_on?.filter((d) => !dropped.has(d));
    const kept: PipelineNode = { ...n, ...(depends ? { depends_on: depends } : {}) };
    if (n.id === nodeId && (n.type === "DQL" || n.type === "PIPELINE")) {
      kept.output = { target: "caller" };
    }
    nodes.push(kept);
  }
  return { ...body, nodes };
}
