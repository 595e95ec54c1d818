/** Pipeline bodies for tests: one node builder and one body builder instead of literals. */

export interface DqlNode {
  id: string;
  type: "DQL";
  [field: string]: unknown;
}

/** A DQL node: `dql("read", { source: "crm", sql: "SELECT 1" })`; any other field passes through. */
export function dql(id: string, fields: Record<string, unknown>): DqlNode {
  return { id, type: "DQL", ...fields };
}

/** A whole pipeline body (schema version 1) around its nodes; other fields pass through. */
export function pipelineBody(
  { name, nodes, ...rest }: { name: string; nodes: unknown[]; [field: string]: unknown },
): Record<string, unknown> {
  return { name, schema_version: 1, nodes, ...rest };
}
