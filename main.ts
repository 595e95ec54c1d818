/**
 * Entry point. Wiring only: load config → open store → migrate → build services → serve.
 *
 *   main.ts [serve] [--config FILE] [--quick-start]   start the service (default)
 *   main.ts migrate [--config FILE]   apply pending migrations and exit
 *   main.ts backup --to FILE [--force] [--config FILE]   embedded store + secrets into FILE
 *   main.ts restore --from FILE [--config FILE]   a backup into an empty data directory
 *   main.ts hash-password             read a password on stdin, print its Argon2id hash
 *   main.ts version                   print version, commit and build time
 */
import { loadConfig, type ResolvedConfig, StartupError } from "./src/config/mod.ts";
import { readBuildInfo } from "./src/health/mod.ts";
import { startServer } from "./src/http/mod.ts";
import { hashSecret } from "./src/lib/argon2.ts";
import { createLogger, type Logger } from "./src/lib/log.ts";
import { redactUrl } from "./src/lib/redact.ts";
import { writeBackup } from "./src/backup.ts";
import { restoreBackup } from "./src/restore.ts";
import { createRuntime } from "./src/runtime.ts";
import { migrate, MigrationError, openDb } from "./src/store/mod.ts";

const USAGE = [
  "usage: main.ts [serve] [--config FILE] [--quick-start]",
  "       main.ts migrate [--config FILE]",
  "       main.ts backup --to FILE [--force] [--config FILE]",
  "       main.ts restore --from FILE [--config FILE]",
  "       main.ts hash-password | version",
].join("\n");

/** `deno task start`: local accounts on unless the file or environment says otherwise. */
const QUICK_START_BASE = { service: { auth: { local: { enabled: true } } } };

interface Args {
  command: string;
  configPath?: string;
  quickStart: boolean;
  to?: string;
  from?: string;
  force: boolean;
}

/** Options taking a file name, as `--name FILE` or `--name=FILE`. */
const FILE_OPTIONS = { "--config": "configPath", "--to": "to", "--from": "from" } as const;

function parseArgs(args: string[]): Args {
  const parsed: Args = { command: "serve", quickStart: false, force: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [name, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (name in FILE_OPTIONS) {
      const value = inline ?? args[++i];
      if (!value) throw new StartupError(`${name} needs a file name`);
      parsed[FILE_OPTIONS[name as keyof typeof FILE_OPTIONS]] = value;
    } else if (arg === "--quick-start") parsed.quickStart = true;
    else if (arg === "--force") parsed.force = true;
    else if (arg === "-h" || arg === "--help") parsed.command = "help";
    else if (!arg.startsWith("-")) parsed.command = arg;
    else throw new StartupError(`unknown option ${arg}\n${USAGE}`);
  }
  return parsed;
}

async function serve(config: ResolvedConfig, logger: Logger, quickStart: boolean): Promise<void> {
  const runtime = await createRuntime(config, { env: Deno.env.toObject(), logger, quickStart });
  const server = await startServer(runtime.app, {
    hostname: config.http.host,
    port: config.http.port,
    graceSeconds: config.http.shutdownGraceSeconds,
    timeouts: config.http,
    logger,
  });
  // Resolves once the listener has drained and every store is closed; only then may main() exit.
  // Installed before "listening" is announced, so a signal sent on that line is never fatal.
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info("shutting down", { signal });
      // Together, both bounded by the grace: readiness turns false and the listener stops
      // accepting at once; in-flight requests are answered once their runs end, on their own or
      // aborted near the grace's end (docs/operations.md#faults-and-the-soak).
      const draining = runtime.drain();
      await server.shutdown();
      await draining;
      await runtime.close();
      logger.info("shutdown complete");
      resolve();
    };
    Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
    Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  });
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  runtime.setListenOrigin(`http://${host}:${server.port}`);
  runtime.health.markStarted();
  logger.info("listening", {
    url: `http://${host}:${server.port}`,
    version: runtime.buildInfo.version,
    store: config.store.kind,
    shared_store: config.sharedStore.kind,
    system_actor: runtime.systemActor.id,
  });
  const credential = runtime.quickStartCredential;
  if (credential) {
    // The terminal only: never the log stream, never the audit log.
    console.error(
      `\nQuick start: sign in at http://${host}:${server.port}/login as ${credential.email}\n` +
        `with the one-time password ${credential.password}\n` +
        `(shown once; you will choose your own at first sign-in)\n`,
    );
  }

  await stopped;
}

async function migrateOnly(config: ResolvedConfig, logger: Logger): Promise<void> {
  const db = await openDb(config.store.url, { poolSize: 1 });
  try {
    const applied = await migrate(db);
    logger.info(applied.length ? "migrations applied" : "database is up to date", {
      store: config.store.kind,
      applied,
    });
  } finally {
    await db.close();
  }
}

async function readStdin(): Promise<string> {
  if (Deno.stdin.isTerminal()) {
    await Deno.stderr.write(new TextEncoder().encode("Password (input hidden): "));
    Deno.stdin.setRaw(true);
    const chars: string[] = [];
    const buf = new Uint8Array(1);
    try {
      while ((await Deno.stdin.read(buf)) === 1) {
        const ch = String.fromCharCode(buf[0]);
        if (ch === "\r" || ch === "\n") break;
        if (buf[0] === 3) throw new StartupError("cancelled");
        if (buf[0] === 127) chars.pop();
        else chars.push(ch);
      }
    } finally {
      Deno.stdin.setRaw(false);
      await Deno.stderr.write(new TextEncoder().encode("\n"));
    }
    return chars.join("");
  }
  const text = await new Response(Deno.stdin.readable).text();
  return text.replace(/\r?\n$/, "");
}

/** `backup` and `restore`: one JSON line on stdout saying what was done (never a secret). */
async function backupOrRestore(args: Args, config: ResolvedConfig, logger: Logger) {
  const env = Deno.env.toObject();
  if (args.command === "backup") {
    if (!args.to) throw new StartupError(`backup needs --to FILE\n${USAGE}`);
    logger.info("backup written", { ...await writeBackup(config, env, args.to, args) });
    return;
  }
  if (!args.from) throw new StartupError(`restore needs --from FILE\n${USAGE}`);
  const report = await restoreBackup(config, env, args.from, logger);
  if (report.overridden_by_environment.length > 0) {
    logger.warn(
      "the environment sets secrets other than the backup's; the service will use those",
      {
        names: report.overridden_by_environment,
      },
    );
  }
  if (report.datasources_under_source_dir.length > 0) {
    logger.warn("datasources still name files under the backed-up data directory", {
      datasources: report.datasources_under_source_dir,
    });
  }
  logger.info("restore complete; the instance starts", { ...report });
}

async function main(args: Args): Promise<number> {
  const { command, configPath, quickStart } = args;
  switch (command) {
    case "version": {
      const info = await readBuildInfo();
      console.log(
        `${info.version} (commit ${info.commit ?? "unknown"}, built ${
          info.build_time ?? "from source"
        })`,
      );
      return 0;
    }
    case "hash-password": {
      const password = await readStdin();
      if (password.length === 0) {
        throw new StartupError("hash-password: no password given on stdin");
      }
      console.log(await hashSecret(password));
      return 0;
    }
    case "serve":
    case "migrate":
    case "backup":
    case "restore": {
      const config = await loadConfig(
        Deno.env.toObject(),
        configPath,
        quickStart ? QUICK_START_BASE : {},
      );
      const logger = createLogger(config.log.level);
      if (command === "migrate") await migrateOnly(config, logger);
      else if (command === "serve") await serve(config, logger, quickStart);
      else await backupOrRestore(args, config, logger);
      return 0;
    }
    case "help":
      console.log(USAGE);
      return 0;
    default:
      throw new StartupError(`unknown command '${command}'; ${USAGE}`);
  }
}

if (import.meta.main) {
  // "startup refused" for the service; "backup refused", "restore refused" for those commands.
  let what = "startup";
  try {
    const args = parseArgs(Deno.args);
    if (args.command === "backup" || args.command === "restore") what = args.command;
    Deno.exit(await main(args));
  } catch (e) {
    if (e instanceof StartupError || e instanceof MigrationError) {
      console.error(`${what} refused: ${redactUrl(e.message)}`);
      Deno.exit(2);
    }
    console.error(`${what} failed: ${redactUrl(e instanceof Error ? e.message : String(e))}`);
    Deno.exit(1);
  }
}
