/**
 * One executable (issue 27 item 7). The service, started from an empty directory with nothing
 * but the environment, on the embedded default, signs its quick-start admin in, issues a key and
 * runs a demo pipeline through the API: always as `deno run` of main.ts from elsewhere, and as the
 * compiled executable where a denort runtime is at hand (DENORT_BIN, or one `deno compile`
 * downloaded before; Deno's release site is out of reach here). `compile.sh`'s own work, what it
 * embeds and its refusal of a program that does not run, is checked with this deno binary
 * standing in for denort: the build completes, and the result is not the service.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { EMBEDDED } from "../src/lib/assets.ts";
import { TARGETS } from "../scripts/compile.ts";
import { CookieClient } from "./support/cookie_client.ts";
import type { Json } from "./support/harness.ts";
import { ServerProcess } from "./support/server_process.ts";
import { readSse } from "./support/sse_client.ts";
import { eventually } from "./support/wait.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;

/** A denort runtime for this machine: DENORT_BIN, or the one `deno compile` cached. */
async function denortAtHand(): Promise<boolean> {
  if (Deno.env.get("DENORT_BIN")) return true;
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  const { denoDir } = JSON.parse(new TextDecoder().decode(out.stdout));
  const zip = `${denoDir}/dl/release/v${Deno.version.deno}/denort-${Deno.build.target}.zip`;
  return await Deno.stat(zip).then(() => true, () => false);
}

/** `sh compile.sh …` with `env` added; its exit code and everything it printed, uncoloured. */
async function compile(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command("sh", {
    args: [`${ROOT}compile.sh`, ...args],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** The quick start's one-time credential, from the lines it prints on the terminal. */
function quickStartCredential(stderr: string): { email: string; password: string } | null {
  const m = /\/login as (\S+)\nwith the one-time password (\S+)\n/.exec(stderr);
  return m && { email: m[1], password: m[2] };
}

/**
 * What a person does after the first start: sign in with the printed password, choose their own,
 * issue an execute key in `demo`, and run `demo/revenue_vs_target` (DuckDB and SQLite reads joined
 * in the staging DuckDB) with it; then read the result page. Also fetches a file of each shipped
 * kind. Returns the result's rows.
 */
async function firstLook(server: ServerProcess): Promise<Json[][]> {
  await server.ready;
  const base = server.url;
  const who = (await eventually(() => quickStartCredential(server.stderr), {
    what: "the quick-start credential",
  }))!;
  const browser = new CookieClient();
  await (await browser.request(`${base}/login`)).body?.cancel();
  // Sign-in sets a fresh token: each form takes the one the browser holds now.
  const csrf = () => browser.cookie(base, "svc_csrf")!;
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, _csrf: csrf() }),
  });
  const login = await browser.request(`${base}/login`, form(who));
  await login.body?.cancel();
  deepEqual([login.status, login.headers.get("location")], [302, "/"]);
  const changed = await browser.request(
    `${base}/partials/account/password`,
    form({ current_password: who.password, new_password: "a password of my own" }),
  );
  await changed.body?.cancel();
  equal(changed.status, 302);

  const issued = await browser.request(`${base}/api/v1/auth/api-keys`, {
    method: "POST",
    headers: {
      accept: "application/json",
      "content-type": "application/json",
      "SVC-CSRF-Token": csrf(),
      "SVC-Workspace": "demo",
    },
    body: JSON.stringify({ name: "first look", scopes: ["execute"] }),
  });
  const issuedBody = await issued.json();
  equal(issued.status, 201, JSON.stringify(issuedBody));
  const key = { "SVC-API-Key": issuedBody.data.key };

  const listed = await (await fetch(`${base}/api/v1/pipelines?prefix=demo`, { headers: key }))
    .json();
  const pipeline = listed.data.pipelines.find((p: Json) => p.name === "demo/revenue_vs_target");
  ok(pipeline, JSON.stringify(listed));
  const run = await fetch(`${base}/api/v1/pipelines/${pipeline.id}/execute`, {
    method: "POST",
    headers: { ...key, accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ parameters: {} }),
  });
  equal(run.status, 200);
  const id = run.headers.get("SVC-Execution-Id")!;
  const events: string[] = [];
  for await (const item of readSse(run.body!)) if ("frame" in item) events.push(item.frame.event);
  ok(events.includes("pipeline_completed") && events.includes("data_ready"), events.join(", "));
  const record = await (await fetch(`${base}/api/v1/executions/${id}`, { headers: key })).json();
  equal(record.data.status, "SUCCESS");
  const page = await (await fetch(`${base}/api/v1/executions/${id}/result`, { headers: key }))
    .json();
  equal(
    page.data.schema.map((c: Json) => c.name).join(","),
    [
      "country",
      "country_name",
      "region",
      "account_manager",
      "orders",
      "revenue",
      "target",
      "attainment_pct",
    ].join(","),
  );

  // One file of each shipped kind: static asset, browser library, site page, docs page.
  for (const path of ["/css/app.css", "/vendor/htmx.min.js", "/faq", "/docs/development"]) {
    const res = await fetch(`${base}${path}`);
    await res.body?.cancel();
    equal(res.status, 200, path);
  }
  return page.data.rows;
}

/** Starts `program` serving the quick start from a fresh empty directory; checks and stops it. */
async function fromEmptyDirectory(program: string[]): Promise<{ rows: Json[][]; readyMs: number }> {
  const dir = await Deno.makeTempDir({ prefix: "svc_empty_" });
  const started = performance.now();
  const server = new ServerProcess({}, ["--quick-start"], { cwd: dir, program });
  try {
    await server.ready;
    await eventually(async () => (await fetch(`${server.url}/ready`)).status === 200, {
      what: "/ready",
      ms: 30_000,
    });
    const readyMs = performance.now() - started;
    const rows = await firstLook(server);
    // Everything it wrote is in the directory it was started in: the default `./data`.
    ok((await Deno.stat(`${dir}/data/service.db`)).isFile);
    ok((await Deno.stat(`${dir}/data/demo/shop.duckdb`)).isFile);
    equal(await server.stop("SIGTERM"), 0);
    return { rows, readyMs };
  } finally {
    await server.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("from an empty directory, deno run of main.ts starts the quick start and runs a demo pipeline", async () => {
  const { rows } = await fromEmptyDirectory([Deno.execPath(), "run", "--allow-all", MAIN]);
  ok(rows.length >= 5, `${rows.length} countries`);
});

/** Paths of `deno compile`'s "Embedded Files" tree with their sizes; `x/*` is a folded folder. */
function embedded(output: string): Map<string, number> {
  const units: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 };
  const out = new Map<string, number>();
  const stack: string[] = [];
  const lines = output.split("\n");
  for (const line of lines.slice(lines.indexOf("Embedded Files") + 1)) {
    if (line.startsWith("Files:")) break;
    const m = /^((?:[│ ] )*)[├└]─[┬─] (.+?) \((\d+(?:\.\d+)?)(B|KB|MB|GB)/.exec(line);
    if (!m) continue;
    stack.length = m[1].length / 2;
    stack.push(m[2]);
    out.set(stack.join("/"), Number(m[3]) * units[m[4]]);
  }
  return out;
}

Deno.test("compile.sh embeds the assets list and one DuckDB binding, and refuses a program that does not run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_compile_" });
  try {
    const output = `${dir}/pipeline-service`;
    // This deno binary as the base: the build completes, but the full deno ignores the embedded
    // program, so the result does not answer as the service.
    const built = await compile(["--no-check", "--output", output], {
      DENORT_BIN: Deno.execPath(),
    });
    equal(built.code, 1, built.text);
    match(built.text, /built .* MiB in [\d.]+ s/);
    match(built.text, /does not run as the service \(removed\): is DENORT_BIN a denort runtime/);
    equal(await Deno.stat(output).then(() => true, () => false), false);

    const paths = embedded(built.text);
    const has = (entry: string) =>
      [...paths.keys()].some((p) =>
        entry.endsWith("/")
          ? p.startsWith(entry)
          : p === entry || (p.endsWith("/*") && entry.startsWith(p.slice(0, -1)))
      );
    for (const entry of EMBEDDED) ok(has(entry), `${entry} is embedded`);
    const modules = ".deno_compile_node_modules/localhost/";
    const binding = `${modules}@duckdb/node-bindings-${TARGETS[Deno.build.target].duckdb}/*`;
    // libduckdb.so (about 70 MB) beside the 0.4 MB addon.
    ok((paths.get(binding) ?? 0) > 50e6, `${binding}: ${paths.get(binding)}`);
    const duckdb = [...paths.keys()].filter((p) =>
      p.startsWith(`${modules}@duckdb/node-bindings-`)
    );
    deepEqual(duckdb, [binding]);
    // The /vendor/** libraries are text imports (ui/vendor.ts): npm packages that nothing
    // calls, which the build must keep all the same.
    for (const vendored of ["htmx.org/", "uplot/", "@codemirror/", "@lezer/"]) {
      ok([...paths.keys()].some((p) => p.startsWith(`${modules}${vendored}`)), vendored);
    }
    for (const devOnly of ["playwright-core", "fast-check", "axe-core"]) {
      ok(![...paths.keys()].some((p) => p.startsWith(`${modules}${devOnly}`)), devOnly);
    }
    equal(await Deno.stat(`${ROOT}build/build_info.json`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "the compiled executable, from an empty directory, runs a demo pipeline on the quick start",
  ignore: !await denortAtHand(),
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc_exe_" });
    try {
      const output = `${dir}/pipeline-service`;
      const built = await compile(["--no-check", "--output", output]);
      equal(built.code, 0, built.text);
      const { rows, readyMs } = await fromEmptyDirectory([output]);
      ok(rows.length >= 5, `${rows.length} countries`);
      console.log(
        `compiled: ${built.text.match(/built .*/)?.[0]}; started to /ready ${readyMs} ms`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
