/**
 * Traces (docs/operations.md "Metrics and traces"): `main.ts serve` as a real process with Deno's
 * built-in OpenTelemetry on (`OTEL_DENO=true`), exporting OTLP/HTTP JSON to a receiver this test
 * runs with Deno.serve, on both stores. One run through the REST API is one trace: the request's server span,
 * with child spans for authentication and authorisation, the store, the execution, its node and
 * the statement on the datasource, every one carrying the request's correlation id.
 */
import { equal, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer, testSecrets } from "./support/harness.ts";
import { sqliteFile, sqliteSource } from "./support/pipeline_client.ts";
import { ServerProcess } from "./support/server_process.ts";
import { forEachStoreKind, freshPostgresDatabase } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

/** A local OTLP/HTTP receiver: keeps every span of every `POST /v1/traces` JSON body. */
function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/v1/traces") {
      equal(req.headers.get("content-type"), "application/json");
      const body = await req.json();
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans ?? []);
      }
    } else await req.body?.cancel();
    return Response.json({});
  });
  return { spans, url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** OTLP's SpanKind for a server span. */
const SERVER = 2;

const attribute = (span: OtlpSpan, key: string) =>
  span.attributes.find((a) => a.key === key)?.value.stringValue;

forEachStoreKind(
  "a run over REST is one trace: request, auth, store, execution, node and statement spans",
  async (store) => {
    const receiver = otlpReceiver();
    const dir = await Deno.makeTempDir({ prefix: "svc_traces_" });
    const pg = store === "postgres" ? await freshPostgresDatabase() : undefined;
    const env = {
      SERVICE_DATA_DIR: dir,
      SERVICE_STORE_URL: pg?.url ?? `sqlite:${dir}/service.db`,
      SERVICE_DEMO_ENABLED: "false",
      ...(pg ? testSecrets() : {}),
    };
    let server: ServerProcess | undefined;
    try {
      // Seeded by an instance in this process, closed before the traced one starts on its files.
      const setup = await startTestServer({ env });
      let key: string, pipelineId: string;
      try {
        const f = await seedRoles(setup.runtime);
        const admin = await sessionHeaders(setup.runtime, f.users.super_admin, "acme");
        const file = await sqliteFile(); // orders: amounts 10 and 32
        const ds = await call(
          setup,
          "POST",
          "/api/v1/datasources",
          admin,
          sqliteSource("wh", file),
        );
        equal(ds.status, 201, JSON.stringify(ds.body));
        const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
        const saved = await setup.runtime.pipelines.lifecycle.create(ctx, {
          name: "traced/orders",
          body: {
            name: "traced/orders",
            schema_version: 1,
            nodes: [{
              id: "read",
              type: "DQL",
              source: "wh",
              sql: "SELECT id, amount FROM orders",
            }],
          },
          attrs: {},
        });
        pipelineId = saved.entity.id;
        key = await userKey(setup.runtime, f.users.author, f.workspace.id, ["author"]);
      } finally {
        await setup.close();
      }

      server = new ServerProcess({
        ...env,
        OTEL_DENO: "true",
        OTEL_SERVICE_NAME: "pipeline-service",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        // Spans leave in batches; a short delay keeps the wait short.
        OTEL_BSP_SCHEDULE_DELAY: "200",
      });
      await server.ready;
      const correlationId = crypto.randomUUID();
      const res = await fetch(`${server.url}/api/v1/pipelines/${pipelineId}/execute`, {
        method: "POST",
        headers: {
          "SVC-API-Key": key,
          "SVC-Correlation-Id": correlationId,
          accept: "text/event-stream",
          "content-type": "application/json",
        },
        body: "{}",
      });
      equal(res.status, 200);
      ok((await res.text()).includes("event: data_ready"));

      const ours = (s: OtlpSpan) => attribute(s, "svc.correlation_id") === correlationId;
      const names = ["authenticate", "authorize", "execution", "node DQL", "datasource.statement"];
      const request = await eventually((): OtlpSpan | undefined => {
        const spans = receiver.spans.filter(ours);
        const server = spans.find((s) => s.kind === SERVER && attribute(s, "http.route"));
        const named = names.every((n) => spans.some((s) => s.name === n));
        const stored = spans.some((s) => s.name.startsWith("store."));
        return named && stored ? server : undefined;
      }, { what: "the run's spans at the receiver", ms: 30_000, intervalMs: 100 }) as OtlpSpan;

      equal(request.name, "POST /api/v1/pipelines/:id/execute");
      equal(attribute(request, "http.route"), "/api/v1/pipelines/:id/execute");
      const trace = receiver.spans.filter((s) => s.traceId === request.traceId);
      const byId = new Map(trace.map((s) => [s.spanId, s]));
      /** True when `span` descends from `ancestor` within the trace. */
      const under = (span: OtlpSpan, ancestor: OtlpSpan): boolean => {
        for (let p = byId.get(span.parentSpanId ?? ""); p; p = byId.get(p.parentSpanId ?? "")) {
          if (p === ancestor) return true;
        }
        return false;
      };
      const one = (name: string) => {
        const found = trace.find((s) => s.name === name && ours(s));
        ok(found, `${name} is in the request's trace`);
        ok(under(found, request), `${name} descends from the request span`);
        return found;
      };
      one("authenticate");
      one("authorize");
      const stored = trace.find((s) => s.name.startsWith("store.") && under(s, request));
      ok(stored, "a store span");
      equal(attribute(stored, "db.system.name"), store === "postgres" ? "postgresql" : "sqlite");
      const execution = one("execution");
      const node = one("node DQL");
      ok(under(node, execution), "the node runs inside the execution's span");
      equal(attribute(node, "svc.node_id"), "read");
      const statement = one("datasource.statement");
      ok(under(statement, node), "the statement runs inside its node's span");
      equal(attribute(statement, "svc.datasource"), "wh");
      equal(attribute(statement, "db.system.name"), "sqlite");
    } finally {
      await server?.stop();
      await receiver.close();
      await pg?.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
