/**
 * Both API descriptions are good enough for the most used TypeScript generator: openapi-typescript
 * turns the served `/openapi.json` and `/api/x/openapi.json` into types, and a client written
 * against them with openapi-fetch type-checks (`deno run --check`) and calls a running instance.
 * A self-referencing or dangling schema stops the generator; a wrong path or field stops the check.
 */
import { equal, ok } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer } from "./support/harness.ts";
import { teamPipeline } from "./support/pipeline_body.ts";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** The client a program would write: three routes of the management API, then an endpoint. */
const CLIENT = `
import createClient from "openapi-fetch";
import type { paths } from "./api.ts";
import type { paths as published } from "./x.ts";

const [base, key, pipelineId] = Deno.args;
const headers = { "SVC-API-Key": key };
// JSON only: the result route also answers CSV (format=csv), the replay an event stream.
const api = createClient<paths, "application/json">({ baseUrl: base, headers });

const list = await api.GET("/api/v1/pipelines", { params: { query: { limit: 10 } } });
if (!list.data) throw new Error("list: " + JSON.stringify(list.error));
// Without a prefix the answer is the paged list; with one it is a folder level.
const listed = list.data.data;
if (!("items" in listed)) throw new Error("a folder level: " + JSON.stringify(listed));
const names = listed.items.map((p) => p.name);

const run = await api.POST("/api/v1/pipelines/{id}/execute", {
  params: { path: { id: pipelineId } },
  body: { parameters: { team: "red" } },
  headers: { accept: "text/event-stream" },
  parseAs: "text",
});
const executionId = run.response.headers.get("svc-execution-id") ?? "";
const page = await api.GET("/api/v1/executions/{id}/result", {
  params: { path: { id: executionId }, query: { limit: 5 } },
});
if (!page.data) throw new Error("result: " + JSON.stringify(page.error));

const x = createClient<published>({ baseUrl: base + "/api/x", headers });
const served = await x.GET("/teams/{team}", { params: { path: { team: "blue" } } });
console.log(JSON.stringify({
  names,
  executed: run.response.status,
  rows: page.data.data.rows,
  served: served.response.status,
  body: served.data,
}));
`;

async function generate(doc: unknown): Promise<string> {
  return astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
}

Deno.test("a typed client generated from both OpenAPI documents compiles and calls the service", async () => {
  const s = await startTestServer({ env: { SERVICE_DEMO_ENABLED: "false" } });
  const dir = await Deno.makeTempDir({ prefix: "svc_client_" });
  try {
    const f = await seedRoles(s.runtime);
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const pipelineId = await teamPipeline(s, ctx, "api/team");
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    const headers = { "SVC-API-Key": key };
    const published = await call(s, "POST", "/api/v1/endpoints", headers, {
      path_pattern: "/teams/{team}",
      pipeline_id: pipelineId,
    });
    equal(published.status, 201, JSON.stringify(published.body));

    const api = await (await s.fetch("/openapi.json")).json();
    const x = await (await s.fetch("/api/x/openapi.json", { headers })).json();
    await Deno.writeTextFile(`${dir}/api.ts`, await generate(api));
    await Deno.writeTextFile(`${dir}/x.ts`, await generate(x));
    await Deno.writeTextFile(`${dir}/client.ts`, CLIENT);

    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--check",
        "--quiet",
        "--config",
        CONFIG,
        "--allow-net=127.0.0.1",
        `${dir}/client.ts`,
        s.url,
        key,
        pipelineId,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    ok(out.success, stderr.slice(0, 4000));
    const seen = JSON.parse(new TextDecoder().decode(out.stdout));
    ok(seen.names.includes("api/team"), JSON.stringify(seen));
    equal(seen.executed, 200);
    equal(seen.rows[0][0] ?? seen.rows[0].team, "red");
    equal(seen.served, 200);
    ok(JSON.stringify(seen.body).includes("blue"), JSON.stringify(seen.body));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await s.close();
  }
});
