/** DML and DDL: one rendered statement run in its own transaction on a writable datasource. */
import type { NodeRunner } from "./context.ts";
import { nodeSql, statementFailed, statementSpan } from "./context.ts";
import { writableDatasource } from "./writeback.ts";

export const runStatement: NodeRunner = async (ctx, node, progress, facts) => {
  await progress.enter("connecting");
  const source = node.source!;
  facts.failed.datasource = source;
  const ds = await writableDatasource(ctx, node, source);
  facts.failed.dialect = ds.dialect;
  const sql = await nodeSql(ctx, node, ds.dialect, facts);
  await progress.enter("executing");
  try {
    const outcome = await statementSpan(
      ctx,
      node,
      source,
      ds.dialect,
      () => ds.connector.write([{ sql, params: ctx.params }], { signal: ctx.signal }),
    );
    const affected = outcome.rows_affected[0] ?? null;
    if (affected !== null) await progress.add({ rows_written: affected });
    await progress.enter("finalizing");
    facts.evidence = outcome;
    return { rows_out: affected, bytes_out: null, evidence: outcome };
  } catch (error) {
    throw ctx.signal.aborted ? error : statementFailed(node, ds.dialect, error);
  }
};
