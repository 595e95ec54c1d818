/**
 * The datasource pages: the list, one datasource (definition without secrets, facts, schema
 * browser) and the partials behind the test button and the browser, over the same connection
 * use cases as REST.
 */
import { z } from "zod";
import { renderToString } from "preact-render-to-string";
import { AppError } from "../../errors/mod.ts";
import {
  ColumnsPartial,
  DatasourcePage,
  DatasourcesPage,
  TablesPartial,
} from "../../../ui/pages/datasources.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { allows, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const name = z.object({ name: z.string().min(1).max(200) });

export function datasourcePageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/datasources",
      summary: "Datasources this workspace can use",
      access: "content.read",
    }),
    async (c, { actor, workspace }) => {
      const [ctx, listing] = await Promise.all([
        shellContext(c, deps, actor),
        deps.content.datasources.list(actor, workspace, { offset: 0, limit: 500 }),
      ]);
      return c.html(renderPage(
        <DatasourcesPage
          ctx={ctx}
          now={new Date()}
          datasources={listing.items}
          canRegister={allows({ actor, workspace }, "datasources.write")}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/datasources/:name",
      summary: "A datasource: definition, facts and schema browser",
      access: "content.read",
      params: name,
      query: z.object({ saved: z.string().max(4).optional() }),
      errors: ["datasource.not_found"],
    }),
    async (c, { actor, workspace, params, query }) => {
      const target = await deps.content.datasources.writeTarget(actor, workspace, params.name);
      const can = {
        test: allows({ actor, workspace }, "datasources.test"),
        introspect: allows({ actor, workspace }, "datasources.introspect"),
        edit: target !== undefined && allows(
          { actor, workspace },
          target === "instance" ? "datasources.write_instance" : "datasources.write",
        ),
      };
      const [ctx, d] = await Promise.all([
        shellContext(c, deps, actor),
        deps.content.datasources.get(actor, workspace, params.name),
      ]);
      let schemas: string[] | null = null;
      let schemaError: string | null = null;
      if (can.introspect) {
        try {
          schemas = (await deps.content.connections.schemas(actor, workspace, params.name)).schemas;
        } catch (e) {
          // An unreachable datasource still has a page; the browser says why it is empty.
          if (!(e instanceof AppError)) throw e;
          schemaError = e.userMessage;
        }
      }
      return c.html(renderPage(
        <DatasourcePage
          ctx={ctx}
          now={new Date()}
          d={d as never}
          schemas={schemas}
          schemaError={schemaError}
          can={can}
          saved={query.saved !== undefined}
          lakeTables={d.dialect === "LAKE"
            ? (await deps.content.lakeTables.list(actor, workspace, params.name)).tables
            : null}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "post",
      path: "/partials/datasources/:name/test",
      summary: "Test the connection; answers the outcome as HTML",
      access: "datasources.test",
      params: name,
      errors: ["datasource.not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const report = await deps.content.connections.test(
        actor,
        workspace,
        params.name,
      );
      return c.html(renderToString(
        <span role="status">
          <span class={`badge ${report.connected ? "ok" : "bad"}`}>
            {report.connected ? "reachable" : "failed"}
          </span>{" "}
          <span class="muted small">
            {report.connected
              ? `${report.latency_ms} ms${
                report.server_version ? ` · ${report.server_version}` : ""
              }`
              : report.error ?? report.error_class}
          </span>
        </span>,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/partials/datasources/:name/tables",
      summary: "The tables of one schema, as HTML",
      access: "datasources.introspect",
      params: name,
      query: z.object({ schema: z.string().max(1024) }),
      errors: ["datasource.not_found"],
    }),
    async (c, { actor, workspace, params, query }) => {
      const { tables } = await deps.content.connections.tables(
        actor,
        workspace,
        params.name,
        query.schema,
      );
      return c.html(renderToString(
        <TablesPartial name={params.name} schema={query.schema} tables={tables} />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/partials/datasources/:name/columns",
      summary: "The columns of one table, as HTML",
      access: "datasources.introspect",
      params: name,
      query: z.object({ schema: z.string().max(1024), table: z.string().max(1024) }),
      errors: ["datasource.not_found", "datasource.table_not_found"],
    }),
    async (c, { actor, workspace, params, query }) => {
      const columns = await deps.content.connections.columns(
        actor,
        workspace,
        params.name,
        query.table,
        query.schema,
      );
      return c.html(renderToString(<ColumnsPartial table={query.table} columns={columns} />));
    },
  );
}
