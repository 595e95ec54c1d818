/**
 * The service as an operator runs it: `main.ts` in a real subprocess. Startup refusals, the
 * embedded quick start, graceful SIGTERM, two replicas racing on one empty PostgreSQL database,
 * and no secret in any log line.
 */
import { equal, match, ok } from "node:assert/strict";
import postgres from "postgres";
import { skipUnless } from "./support/services.ts";
import { testSecrets } from "./support/harness.ts";
import { run, ServerProcess } from "./support/server_process.ts";
import { freshPostgresDatabase } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "svc_proc_" });
}

/** A test with a scratch directory of its own, removed afterwards. */
function inTempDir(name: string, fn: (dir: string) => Promise<void>): void {
  Deno.test(name, async () => {
    const dir = await tempDir();
    try {
      await fn(dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

inTempDir("startup refuses a bad value with one line naming the key, exit code 2", async (dir) => {
  const out = await run(["serve"], { SERVICE_DATA_DIR: dir, SERVICE_HTTP_PORT: "eighty" });
  equal(out.code, 2);
  const lines = out.stderr.trim().split("\n");
  equal(lines.length, 1, out.stderr);
  match(
    lines[0],
    /^startup refused: service\.http\.port: .* \(from environment variable SERVICE_HTTP_PORT\)$/,
  );
});

inTempDir("startup refuses unknown keys from the environment and from --config", async (dir) => {
  const env = await run(["serve"], { SERVICE_DATA_DIR: dir, SERVICE_HTTP_PROTO: "h2" });
  equal(env.code, 2);
  equal(
    env.stderr.trim(),
    "startup refused: SERVICE_HTTP_PROTO: unknown configuration key (environment variable)",
  );

  await Deno.writeTextFile(`${dir}/cfg.yaml`, "service:\n  store:\n    uri: sqlite:x.db\n");
  const file = await run(["serve", "--config", `${dir}/cfg.yaml`], { SERVICE_DATA_DIR: dir });
  equal(file.code, 2);
  equal(file.stderr.trim(), "startup refused: service.store.uri: unknown configuration key");
});

Deno.test("a PostgreSQL store without the two secrets refuses to start", async () => {
  const out = await run(["migrate"], {
    SERVICE_STORE_URL: "postgres://postgres@127.0.0.1:5432/postgres",
  });
  equal(out.code, 2);
  match(
    out.stderr,
    /SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY: required with a PostgreSQL store/,
  );
});

inTempDir("two `main.ts migrate` processes on one empty SQLite file both succeed", async (dir) => {
  const env = { SERVICE_DATA_DIR: dir };
  const [a, b] = await Promise.all([run(["migrate"], env), run(["migrate"], env)]);
  equal(a.code, 0, a.stderr);
  equal(b.code, 0, b.stderr);
  const applied = [a, b].map((r) => JSON.parse(r.stdout.trim().split("\n").at(-1)!).applied.length);
  equal(applied.filter((n) => n > 0).length, 1, "exactly one process applied the migrations");
});

Deno.test("hash-password prints an Argon2id hash of stdin; version prints the version", async () => {
  const hash = await run(["hash-password"], {}, "a long enough password\n");
  equal(hash.code, 0, hash.stderr);
  match(hash.stdout.trim(), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  const empty = await run(["hash-password"], {}, "");
  equal(empty.code, 2);
  const version = await run(["version"], {});
  match(version.stdout, /^\d+\.\d+\.\d+ \(commit /);
});

inTempDir(
  "the embedded default starts with zero set-up, answers UP, and stops cleanly on SIGTERM",
  async (dir) => {
    const server = new ServerProcess({ SERVICE_DATA_DIR: dir });
    try {
      await server.ready;
      const health = await (await fetch(`${server.url}/health`)).json();
      equal(health.data.status, "UP");
      for (const name of ["jwt_secret", "encryption_key"]) {
        equal((await Deno.stat(`${dir}/secrets/${name}`)).mode! & 0o777, 0o600, name);
      }
      ok((await Deno.stat(`${dir}/service.db`)).isFile);
      const generated = server.logs().filter((l) => l.message.startsWith("generated a secret"));
      equal(generated.length, 2);
      equal(await server.stop("SIGTERM"), 0);
      ok(server.logs().some((l) => l.message === "shutdown complete"));
    } finally {
      await server.stop("SIGKILL");
    }
  },
);

Deno.test(
  "no secret reaches the logs: JWT secret, encryption key, store, OIDC client, SMTP and metrics secrets",
  {
    ignore: skipUnless("postgres"),
  },
  async () => {
    const db = await freshPostgresDatabase();
    const dir = await tempDir();
    const secrets = testSecrets();
    // Trust authentication ignores the password, so the canary travels in a URL that still works.
    const canary = `canary${crypto.randomUUID().slice(0, 8)}`;
    const url = new URL(db.url);
    url.password = canary;
    const clientSecret = `oidc-canary-${crypto.randomUUID()}`;
    const smtpPassword = `smtp${crypto.randomUUID().slice(0, 8)}`;
    const metricsToken = `metrics-canary-${crypto.randomUUID()}`;
    const server = new ServerProcess({
      SERVICE_DATA_DIR: dir,
      SERVICE_STORE_URL: url.toString(),
      SERVICE_LOG_LEVEL: "debug",
      SERVICE_AUTH_BASE_URL: "http://127.0.0.1:9",
      SERVICE_AUTH_OIDC_PROVIDERS_0_NAME: "corp",
      SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_ID: "svc",
      SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_SECRET: clientSecret,
      // Nothing listens there: the login attempt fails at discovery and logs why.
      SERVICE_AUTH_OIDC_PROVIDERS_0_ISSUER_URI: "http://127.0.0.1:9/realms/x",
      SERVICE_MAIL_HOST: "127.0.0.1",
      SERVICE_MAIL_FROM: "noreply@svc.test",
      SERVICE_MAIL_USERNAME: "svc",
      SERVICE_MAIL_PASSWORD: smtpPassword,
      SERVICE_METRICS_ENABLED: "true",
      SERVICE_METRICS_TOKEN: metricsToken,
      ...secrets,
    });
    try {
      await server.ready;
      await (await fetch(`${server.url}/health`)).body?.cancel();
      await (await fetch(`${server.url}/api/v1/nope`)).body?.cancel();
      // A wrong token and the right one: neither is logged, even at debug.
      const headers = (token: string) => ({ authorization: `Bearer ${token}` });
      const refused = await fetch(`${server.url}/metrics`, {
        headers: headers(`${metricsToken}x`),
      });
      await refused.body?.cancel();
      equal(refused.status, 401);
      const scraped = await fetch(`${server.url}/metrics`, { headers: headers(metricsToken) });
      ok((await scraped.text()).includes("svc_http_requests_total"));
      const login = await fetch(`${server.url}/oauth2/authorization/corp`, { redirect: "manual" });
      await login.body?.cancel();
      equal(login.headers.get("location"), "/login?error=oidc");
      equal(await server.stop(), 0);
      const all = server.lines.join("\n") + server.stderr;
      ok(all.length > 0);
      ok(all.includes("oidc login failed"), "the failed login is logged");
      ok(server.lines.some((l) => l.includes('"message":"mail is on"')));
      for (
        const secret of [
          canary,
          secrets.SERVICE_JWT_SECRET,
          secrets.SERVICE_ENCRYPTION_KEY,
          clientSecret,
          smtpPassword,
          metricsToken,
        ]
      ) {
        ok(!all.includes(secret), `a secret leaked into the logs`);
      }
    } finally {
      await server.stop("SIGKILL");
      await db.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "two replicas starting together on one empty PostgreSQL database both succeed and share one system actor",
  {
    ignore: skipUnless("postgres"),
  },
  async () => {
    const db = await freshPostgresDatabase();
    const dirs = [await tempDir(), await tempDir()];
    const secrets = testSecrets();
    const replicas = dirs.map((dir) =>
      new ServerProcess({ SERVICE_DATA_DIR: dir, SERVICE_STORE_URL: db.url, ...secrets })
    );
    try {
      await Promise.all(replicas.map((r) => r.ready));
      const ids = replicas.map((r) =>
        r.logs().find((l) => l.message === "listening")!.system_actor
      );
      equal(ids[0], ids[1]);
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql`SELECT id::text AS id FROM users WHERE provider = 'system'`;
        equal(rows.length, 1);
        equal(rows[0].id, ids[0]);
        const migrations = await sql`SELECT count(*)::int AS n FROM schema_migrations`;
        ok(migrations[0].n >= 1);
      } finally {
        await sql.end();
      }
      for (const r of replicas) {
        const health = await (await fetch(`${r.url}/health`)).json();
        equal(health.data.components.database, "UP");
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
      await db.drop();
      for (const d of dirs) await Deno.remove(d, { recursive: true });
    }
  },
);

inTempDir(
  "quick start: a first admin's one-time password goes to the terminal only, and must be changed",
  async (dir) => {
    const server = new ServerProcess({ SERVICE_DATA_DIR: dir }, ["--quick-start"]);
    try {
      await server.ready;
      // The notice is written right after "listening"; wait for it on stderr.
      const password = await eventually(() => /one-time password (\S+)/.exec(server.stderr)?.[1], {
        what: "the one-time password on stderr",
      }).catch(() => undefined);
      ok(password, server.stderr);
      ok(server.stderr.includes("admin@localhost.localdomain"));
      ok(!server.lines.join("\n").includes(password), "never in the log stream");

      const page = await fetch(`${server.url}/login`);
      await page.body?.cancel();
      const csrf = /svc_csrf=([^;]+)/.exec(page.headers.get("set-cookie") ?? "")![1];
      const login = await fetch(`${server.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: `svc_csrf=${csrf}`,
        },
        body: new URLSearchParams({ email: "admin@localhost.localdomain", password, _csrf: csrf }),
      });
      await login.body?.cancel();
      equal(login.headers.get("location"), "/");
      const session = /svc_session=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")![1];
      const gated = await fetch(`${server.url}/dashboard`, {
        redirect: "manual",
        headers: { accept: "text/html", cookie: `svc_session=${session}` },
      });
      await gated.body?.cancel();
      equal(gated.headers.get("location"), "/settings/password");
      equal(await server.stop(), 0);

      const again = new ServerProcess({ SERVICE_DATA_DIR: dir }, ["--quick-start"]);
      await again.ready;
      equal(await again.stop(), 0);
      ok(!again.stderr.includes("one-time password"), "printed once, at first boot only");
    } finally {
      await server.stop("SIGKILL");
    }
  },
);
