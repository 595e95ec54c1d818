/**
 * A node's disclosure on a run's view: its SQL as the run rendered it, the values bound to its
 * placeholders, and what became of its rows (docs/ui.md#runs).
 */
import { z } from "zod";
import { renderToString } from "preact-render-to-string";
import { AppError } from "../../errors/mod.ts";
import { NODE_ID } from "../../pipelines/mod.ts";
import { NodeDetail } from "../../../ui/components/node_detail.tsx";
import type { Router } from "../routing.ts";
import { pageRoute, type UiPageDeps } from "./shell.ts";

export function runNodeRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/partials/runs/:id/nodes/:node",
      summary: "One node of a run: its rendered SQL with bound values, and where its rows went",
      access: "content.read",
      params: z.object({ id: z.uuid(), node: z.string().regex(NODE_ID) }),
      errors: ["result.execution_not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const caller = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
      const executions = deps.runs.executions;
      const record = await executions.visible(caller, workspace.id, params.id);
      let data = null;
      let missing: string | undefined;
      try {
        data = await deps.runs.nodeSql(record, params.node);
      } catch (e) {
        if (!(e instanceof AppError) || e.status >= 500) throw e;
        // A purged draft or a template no longer readable: say so rather than guess the SQL.
        missing = `This node's SQL cannot be shown again: ${e.message}`;
      }
      const [child] = data?.type === "PIPELINE"
        ? (await executions.descendants(caller, [record.execution_id]))
          .filter((r) =>
            r.parent_execution_id === record.execution_id &&
            r.parent_node_id === params.node
          )
        : [];
      return c.html(renderToString(
        <NodeDetail
          runId={record.execution_id}
          data={data}
          missing={missing}
          resultKept={record.status === "SUCCESS" &&
            record.result_expires_at !== null &&
            Date.parse(record.result_expires_at) > Date.now()}
          child={child ?? null}
          parent={record.parent_execution_id
            ? { execution_id: record.parent_execution_id, node_id: record.parent_node_id ?? "" }
            : null}
        />,
      ));
    },
  );
}
