/**
 * Starts the real application for HTTP tests: the same runtime graph as `main.ts`, on a fresh
 * store, listening on a random loopback port, with its log lines captured.
 */
import { readSources } from "../../src/config/mod.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { startServer } from "../../src/http/mod.ts";
import type { Router } from "../../src/http/routing.ts";
import { createLogger } from "../../src/lib/log.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../src/runtime.ts";
import { freshStore, type StoreKind } from "./stores.ts";
import { closing } from "./closing.ts";

export interface TestServer {
  url: string;
  runtime: Runtime;
  /** Every log line written so far, raw. */
  logs: string[];
  /** fetch relative to the server; the body is always consumed by `json()`/`text()` helpers. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Random secrets in the documented format, for stores that need them set. */
export function testSecrets(): Record<string, string> {
  const b64 = (n: number) =>
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));
  return { SERVICE_JWT_SECRET: b64(32), SERVICE_ENCRYPTION_KEY: b64(32) };
}

export interface TestServerOptions {
  store?: StoreKind;
  /** Extra `SERVICE_*` settings. */
  env?: Record<string, string>;
  /** Override the store URL (e.g. through a TCP proxy); the fresh store is still created. */
  storeUrl?: (fresh: string) => string;
  extendRoutes?: (router: Router) => void;
  /** A fixed port (see `freePort`), for when the base-url must be known before the start. */
  port?: number;
  /** How long `close()` lets in-flight requests finish (default 5). */
  graceSeconds?: number;
  /**
   * Passed to the runtime (e.g. the new-user notice hook). A benchmark turns `checkResponses`
   * off: production does not check its answers, and the check parses every JSON body again.
   */
  runtime?: Pick<RuntimeOptions, "onNewUser" | "executor" | "now" | "mcp" | "checkResponses">;
}

/** A loopback port that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * `start` on a port free a moment ago, again on another when something took it meanwhile (other
 * test processes listen too): for set-ups that must know their port before they listen.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await start(freePort());
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || attempt === 5) throw error;
    }
  }
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  // The runtime migrates the store as it starts; a migrated copy only saves that time.
  const store = await freshStore(options.store ?? "sqlite", { migrated: true });
  const dataDir = await Deno.makeTempDir({ prefix: "svc_data_" });
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_STORE_URL: options.storeUrl ? options.storeUrl(store.url) : store.url,
    SERVICE_HTTP_PORT: "0",
    SERVICE_HEALTH_PROBE_CACHE_MS: "0",
    // The demo content is its own test's subject; elsewhere it would only slow every start.
    SERVICE_DEMO_ENABLED: "false",
    ...(store.kind === "postgres" ? testSecrets() : {}),
    ...options.env,
  };
  const config = resolveConfig(readSources(env), env);
  const logs: string[] = [];
  // Tests read every line; a caller naming a level (the benches: warn) gets the production
  // logger's cost at that level, not a debug line per request.
  const level = options.env?.SERVICE_LOG_LEVEL ? config.log.level : "debug";
  const logger = createLogger(level, (line) => logs.push(line));
  let runtime: Runtime | undefined;
  try {
    runtime = await createRuntime(config, {
      env,
      logger,
      extendRoutes: options.extendRoutes,
      // Every answer of every HTTP test is checked against its route's declared response.
      checkResponses: true,
      ...options.runtime,
    });
    const server = await startServer(runtime.app, {
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      graceSeconds: options.graceSeconds ?? 5,
      timeouts: config.http,
      logger,
    });
    const url = `http://127.0.0.1:${server.port}`;
    runtime.setListenOrigin(url);
    runtime.health.markStarted();
    const rt = runtime;
    return {
      url,
      runtime: rt,
      logs,
      fetch: (path, init) => fetch(url + path, init),
      async close() {
        // main.ts's drain, but what a test left running is aborted at once rather than awaited
        // (tests/drain_test.ts drains a real process).
        const draining = rt.drain({ finishMs: 0, abortMs: (options.graceSeconds ?? 5) * 1000 });
        await server.shutdown();
        await draining;
        await rt.close();
        await store.dispose();
        await Deno.remove(dataDir, { recursive: true });
      },
    };
  } catch (e) {
    await runtime?.close();
    await store.dispose();
    await Deno.remove(dataDir, { recursive: true });
    throw e;
  }
}

/** Runs `fn` against a server started with `options`, closed however `fn` ends. */
export function withTestServer(
  options: TestServerOptions,
  fn: (s: TestServer) => void | Promise<void>,
): Promise<void> {
  return closing(startTestServer(options), fn);
}

/** A decoded JSON body: tests read it by path, so it is deliberately loose. */
// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/** Reads a JSON body (and so releases the connection). */
export async function json(res: Response): Promise<Json> {
  return await res.json();
}

/**
 * A form post as a browser sends it (HTML wanted, no redirect followed; `htmx` adds its header):
 * the answer's status, text and location.
 */
export async function postForm(
  s: Pick<TestServer, "fetch">,
  path: string,
  headers: Record<string, string>,
  fields: Record<string, string> = {},
  htmx = false,
): Promise<{ status: number; text: string; location: string | null }> {
  const res = await s.fetch(path, {
    method: "POST",
    redirect: "manual",
    headers: {
      ...headers,
      accept: "text/html",
      "content-type": "application/x-www-form-urlencoded",
      ...(htmx ? { "hx-request": "true" } : {}),
    },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

/**
 * POSTs `body` exactly as given with `contentType`, for what the HTTP core refuses before any
 * route reads it: the status and the error code answered.
 */
export async function postRaw(
  s: Pick<TestServer, "fetch">,
  path: string,
  headers: Record<string, string>,
  contentType: string,
  body: string,
): Promise<[number, string]> {
  const res = await s.fetch(path, {
    method: "POST",
    headers: { ...headers, "content-type": contentType },
    body,
  });
  return [res.status, (await res.json()).error?.code];
}

/** Where the endpoint published at `pattern` is managed (read, enabled, unpublished). */
export function endpointUrl(pattern: string): string {
  return `/api/v1/endpoints?path=${encodeURIComponent(pattern)}`;
}

/**
 * One request as a test sees it: JSON in (a string body is sent as an HTML form), status and the
 * decoded envelope out; redirects are not followed.
 */
export async function call(
  s: Pick<TestServer, "fetch">,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const form = typeof body === "string";
  const res = await s.fetch(path, {
    method,
    redirect: "manual",
    headers: {
      accept: "application/json",
      ...(body === undefined
        ? {}
        : { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : {} };
}
