/**
 * The configuration tree: every `service.*` property, its type, bounds, default and meaning. This
 * one schema validates the file and the environment, types the resolved config, and generates the
 * docs/configuration.md's reference (`deno task docs:config`). Keys keep their kebab-case names
 * (docs/decisions.md#setting-names); every object is strict, so an unknown key is refused by name.
 */
import { z } from "zod";

/** A whole number from `min` to `max`, `def` when unset. */
const intIn = (min: number, max: number, def: number) => z.int().min(min).max(max).default(def);

const url = (schemes: string[], text: string) =>
  z.string().refine(
    (v) => schemes.some((s) => v.startsWith(s)),
    `must start with ${schemes.join(" or ")}`,
  ).describe(text);

const stringList = (text: string) =>
  z.array(z.string().trim().min(1)).default([]).describe(`${text} (environment: comma list)`);

const oidcProvider = z.strictObject({
  "name": z.string().regex(/^[a-z0-9-]+$/, "must be lowercase [a-z0-9-]+")
    .describe("Registration name used in /oauth2/authorization/{name}"),
  "client-id": z.string().min(1).describe("OAuth client id"),
  "client-secret": z.string().min(1).describe("OAuth client secret"),
  "issuer-uri": z.url().describe("Issuer URL; discovery is read from it"),
  "display-name": z.string().optional().describe("Login button text (defaults to the name)"),
});

export const serviceSchema = z.strictObject({
  "data-dir": z.string().min(1).default("./data").describe(
    "Directory for the embedded database, generated secrets and demo files",
  ),
  "http": z.strictObject({
    "host": z.string().min(1).default("127.0.0.1").describe("Listen address"),
    "port": intIn(0, 65535, 8080).describe("Listen port (0 picks a free one)"),
    "max-body-bytes": intIn(1024, 1024 ** 3, 10 * 1024 * 1024).describe(
      "Largest accepted request body; larger answers 413 request.body_too_large",
    ),
    "header-timeout-seconds": intIn(1, 600, 10).describe(
      "A new connection whose first request head is not complete this long after it opened is " +
        "closed (slow-header clients)",
    ),
    "body-timeout-seconds": intIn(1, 3600, 60).describe(
      "A request body still arriving this long after the service began reading it (right after " +
        "its head) fails with 408 request.body_timeout and its connection closes",
    ),
    "idle-timeout-seconds": intIn(1, 3600, 75).describe(
      "A kept-alive connection with no request in flight is closed when its next request head " +
        "is not complete this long after the last response; a request in flight is never cut",
    ),
    "shutdown-grace-seconds": intIn(1, 600, 30).describe(
      "How long a shutdown takes at most: in-flight requests and their runs get this less a " +
        "quarter (at most 5 s) to end, then what still runs is aborted (shutdown)",
    ),
  }).prefault({}),
  "store": z.strictObject({
    "url": url(
      ["sqlite:", "postgres://", "postgresql://"],
      "Metadata store: sqlite:<path> (embedded, default sqlite:<data-dir>/service.db) or postgres://…",
    ).optional(),
    "pool-size": intIn(1, 200, 10).describe("PostgreSQL connections per instance"),
  }).prefault({}),
  "shared-store": z.strictObject({
    "url": url(
      ["memory:", "redis://", "rediss://"],
      "Shared store for results, counters and pub/sub: memory: (single instance) or redis://…",
    ).default("memory:"),
    "memory-max-bytes": z.int().min(1024 * 1024).default(1024 * 1024 * 1024).describe(
      "What memory: holds at most (keys and values, counted in characters); past it a result " +
        "fails with result.storage_unavailable, as Redis does at maxmemory",
    ),
  }).prefault({}),
  "log": z.strictObject({
    "level": z.enum(["debug", "info", "warn", "error"]).default("info").describe(
      "Lowest level written to stdout",
    ),
  }).prefault({}),
  "health": z.strictObject({
    "probe-timeout-ms": intIn(50, 60000, 2000).describe(
      "A component probe slower than this reports DOWN",
    ),
    "probe-cache-ms": intIn(0, 60000, 1000).describe(
      "Probe results are reused this long, so a busy /health never floods the components",
    ),
  }).prefault({}),
  "metrics": z.strictObject({
    "enabled": z.boolean().default(false).describe(
      "Serve GET /metrics in the Prometheus text format (docs/operations.md); needs token",
    ),
    "token": z.string().min(32).regex(/^\S+$/, "must not contain spaces").optional().describe(
      "Bearer token a scraper sends to /metrics (secret: at least 32 characters, never logged " +
        "or shown; only its hash is kept)",
    ),
  }).prefault({}),
  "paging": z.strictObject({
    "default-limit": intIn(1, 10000, 50).describe("Page size when limit is absent"),
    "max-limit": intIn(1, 10000, 200).describe("Largest page; larger is clamped"),
  }).prefault({}),
  "auth": z.strictObject({
    "base-url": z.url().refine((v) => !v.endsWith("/"), "must not end with /").optional()
      .describe("Exact external origin (no trailing slash); CORS origin, redirect URIs, doc links"),
    "trusted-proxies": stringList("Proxy addresses whose X-Forwarded-For is believed"),
    "allowlist-domains": stringList("Email domains allowed to sign in through OIDC; empty is open"),
    "bootstrap-admin-email": z.email().optional().describe("The first super admin's email"),
    "bootstrap-datasource-file": z.string().optional().describe(
      "Datasource file imported at startup; needs bootstrap-admin-email",
    ),
    "jwt": z.strictObject({
      "ttl-hours": intIn(1, 24 * 30, 8).describe("Session token lifetime"),
    }).prefault({}),
    "api-keys": z.strictObject({
      "cache-ttl-seconds": intIn(0, 3600, 60).describe("Per-instance API key validation cache"),
    }).prefault({}),
    "rate-limit": z.strictObject({
      "login-per-minute": intIn(1, 100000, 20).describe(
        "Login attempts per client address per minute (per instance)",
      ),
    }).prefault({}),
    "local": z.strictObject({
      "enabled": z.boolean().default(false).describe("Local password accounts"),
      "bootstrap-password": z.string().min(1).optional().describe(
        "Plaintext one-time password for the bootstrap admin (never logged)",
      ),
      "bootstrap-password-hash": z.string().startsWith("$argon2id$").optional().describe(
        "Argon2id hash for the bootstrap admin (main.ts hash-password prints one)",
      ),
      "lockout": z.strictObject({
        "max-failures": intIn(1, 1000, 5).describe("Failures before lockout"),
        "duration-minutes": intIn(1, 10080, 15).describe("Lockout length"),
      }).prefault({}),
    }).prefault({}),
    "oidc": z.strictObject({
      "providers": z.array(oidcProvider).default([]).describe("OpenID providers"),
    }).prefault({}),
  }).prefault({}),
  "mail": z.strictObject({
    "host": z.string().trim().min(1).optional().describe(
      "SMTP server; mail is on exactly when host and from are both set",
    ),
    "port": intIn(1, 65535, 587).describe(
      "SMTP submission port; the session must upgrade with STARTTLS or nothing is sent",
    ),
    "from": z.string().trim().regex(/^[^@\s<>]+@[^@\s<>]+$|<[^@\s<>]+@[^@\s<>]+>$/, {
      message: "must be an address or Name <address>",
    }).optional().describe(
      "Sender, `noreply@example.com` or `Service <noreply@example.com>`",
    ),
    "username": z.string().min(1).optional().describe(
      "SMTP login (with password); unset sends unauthenticated",
    ),
    "password": z.string().min(1).optional().describe("SMTP password (secret; never logged)"),
    "ops-recipients": z.array(z.email()).default([]).describe(
      "Addresses that receive new_user notices (environment: comma list)",
    ),
    "ca-file": z.string().min(1).optional().describe(
      "PEM file of the CA (or self-signed certificate) the SMTP server's certificate must chain to, instead of the system roots",
    ),
  }).prefault({}),
  "rate-limit": z.strictObject({
    "requests-per-second": z.int().min(1).default(100).describe("Per-user API request budget"),
    "requests-per-minute": z.int().min(1).default(1000).describe("Per-user API request budget"),
  }).prefault({}),
  "executor": z.strictObject({
    "max-concurrent-executions-per-user": intIn(1, 1000, 10).describe(
      "Running executions per user",
    ),
    "progress-sample-interval-seconds": intIn(1, 60, 1).describe("node_progress sample cadence"),
    "max-list-items": intIn(1, 1_000_000, 10_000).describe(
      "Items one list parameter of an execution may hold; more is refused with pipeline.execution.invalid_parameter_type naming this setting",
    ),
    "max-parameter-values": intIn(1, 10_000_000, 20_000).describe(
      "Values all parameters of one execution may hold together (a list item is one value); more is refused like max-list-items",
    ),
    "max-cell-bytes": intIn(1024, 256 * 1024 * 1024, 8 * 1024 * 1024).describe(
      "Largest single value a read may hand over (a string, a blob, a nested value); a larger one fails the node with pipeline.node.value_too_large, a probe with datasource.probe.value_too_large",
    ),
    "duckdb-memory-limit-mb": intIn(64, 1_048_576, 1024).describe(
      "Memory limit of every DuckDB instance that runs author SQL (each execution's staging database, DUCKDB and LAKE datasources); past it DuckDB spills to disk or fails the statement",
    ),
    "staging-pool-size": z.int().min(0).max(64).default(4).describe(
      "Staging hosts kept warm between runs, per engine (DuckDB instances, SQLite workers), each lent to one run at a time and reset (or discarded) after it; 0 keeps none and makes one per run",
    ),
    "error-detail": z.enum(["full", "structured"]).default("full").describe(
      "Failure records name the node, SQL and exception chain (full) or only code and details",
    ),
  }).prefault({}),
  "executions": z.strictObject({
    "event-retention-days": intIn(1, 3650, 7).describe(
      "Durable execution events are kept this long",
    ),
    "record-retention-days": intIn(0, 36500, 90).describe(
      "Execution records older than this are deleted, with any events left (history starts " +
        "there); 0 keeps them forever",
    ),
    "heartbeat-interval-seconds": intIn(1, 60, 10).describe(
      "Each instance beats on its RUNNING records this often; a record not beaten for six " +
        "intervals belongs to a dead instance and the reaper ends it ABORTED (shutdown)",
    ),
  }).prefault({}),
  "sse": z.strictObject({
    "heartbeat-interval-seconds": intIn(1, 300, 15).describe(
      "Heartbeat comment after this silence",
    ),
    "disconnect-grace-seconds": intIn(0, 3600, 30).describe("A dropped stream cancels after this"),
    "max-streams-per-user": intIn(1, 10000, 50).describe("Concurrent event streams per user"),
  }).prefault({}),
  "result": z.strictObject({
    "max-size-bytes": z.int().min(1024).default(100 * 1024 * 1024).describe(
      "A caller result over this fails with result.too_large",
    ),
    "ttl-default-seconds": intIn(1, 86400, 300).describe(
      "Result lifetime without a request header",
    ),
    "ttl-min-seconds": intIn(1, 86400, 30).describe("Lowest result lifetime a request may ask"),
    "ttl-max-seconds": intIn(1, 604800, 86400).describe(
      "Highest result lifetime a request may ask",
    ),
    "page-rows": intIn(1, 100000, 1000).describe("Default result page rows"),
    "page-rows-max": intIn(1, 1000000, 10000).describe("Result page cap"),
  }).prefault({}),
  "idempotency": z.strictObject({
    "ttl-seconds": intIn(60, 604800, 86400).describe("Idempotency-Key replay cache"),
  }).prefault({}),
  "datasources": z.strictObject({
    "retire-ceiling-seconds": intIn(1, 86400, 300).describe(
      "A retired pool is closed by then at latest",
    ),
    "member-writes-enabled": z.boolean().default(true).describe(
      "Workspace admins may register, update and delete their workspace's datasources; false " +
        "leaves every datasource write to super admins",
    ),
  }).prefault({}),
  "endpoints": z.strictObject({
    "timeout-min-seconds": intIn(1, 300, 1).describe("Lowest endpoint timeout"),
    "timeout-max-seconds": intIn(1, 3600, 300).describe("Highest endpoint timeout"),
  }).prefault({}),
  "mcp": z.strictObject({
    "max-rows": intIn(1, 10000, 200).describe(
      "Rows a tool returns at most per call; more set truncated and a next_cursor",
    ),
    "max-chars": intIn(1000, 10_000_000, 20000).describe(
      "Characters of JSON rows a tool returns at most per call; a longer page is cut",
    ),
    "execute-timeout-seconds": intIn(1, 3600, 300).describe(
      "How long pipelines_execute waits for a run's end before answering it RUNNING (the run " +
        "goes on); a call may ask for less",
    ),
  }).prefault({}),
  "demo": z.strictObject({
    "enabled": z.boolean().default(true).describe(
      "Seed the demo workspace's example datasources, templates and pipelines once, at the first " +
        "boot that finds the workspace active (the workspace itself is always created)",
    ),
  }).prefault({}),
  "deployment": z.strictObject({
    "name": z.string().min(1).default("development").describe("This deployment's name"),
    "authoring-enabled": z.boolean().default(true).describe(
      "false is the hardened (production) posture",
    ),
    "promotion": z.strictObject({
      "target-url": z.url().optional().describe("Receiving deployment's base URL"),
      "target-key": z.string().min(1).optional().describe("Server key for the target"),
      "target-key-file": z.string().min(1).optional().describe(
        "File holding the target's server key, read at every promotion (rotation needs no " +
          "restart); beats target-key when both are set",
      ),
      "server-key": z.string().min(1).optional().describe(
        "Deprecated pre-shared receiver key; accepted for one release with a warning",
      ),
    }).prefault({}),
  }).prefault({}),
}).prefault({});

/** The configuration file and the environment both describe this tree. */
export const configSchema = z.strictObject({ service: serviceSchema }).prefault({});

export type RawServiceConfig = z.output<typeof serviceSchema>;
