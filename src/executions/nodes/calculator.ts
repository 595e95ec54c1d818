/**
 * CALCULATOR: derives parameters before any other node runs; it emits node_started and its end
 * but no progress samples.
 */
import { runCalculator } from "../../pipelines/mod.ts";
import type { PipelineNode } from "../../pipelines/mod.ts";

/** Adds the node's derived parameters to `params` (in place, so later calculators see them). */
export function runCalculatorNode(
  node: PipelineNode,
  params: Record<string, unknown>,
  today: string,
): void {
  Object.assign(params, runCalculator(node.calculator!, params, today));
}
