/**
 * Entry point. Wiring only: load config → open store → migrate → build services → serve.
 *
 *   main.ts [serve] [--config FILE] [--quick-start]   start the service (default)
 *   main.ts migrate [--config FILE]   apply pending migrations and exit
 *   main.ts hash-password             read a password on stdin, print its Argon2id hash
 *   main.ts version                   print version, commit and build time
 */
import { loadConfig, type ResolvedConfig, StartupError } from "./src/config/mod.ts";
import { readBuildInfo } from "./src/health/mod.ts";
import { startServer } from "./src/http/mod.ts";
import { hashSecret } from "./src/lib/argon2.ts";
import { createLogger, type Logger } from "./src/lib/log.ts";
import { redactUrl } from "./src/lib/redact.ts";
import { createRuntime } from "./src/runtime.ts";
import { migrate, MigrationError, openDb } from "./src/store/mod.ts";

const USAGE =
  "usage: main.ts [serve|migrate|hash-password|version] [--config FILE] [--quick-start]";

/** `deno task start`: local accounts on unless the file or environment says otherwise. */
const QUICK_START_BASE = { service: { auth: { local: { enabled: true } } } };

function parseArgs(args: string[]): { command: string; configPath?: string; quickStart: boolean } {
  let command = "serve";
  let configPath: string | undefined;
  let quickStart = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--quick-start") quickStart = true;
    else if (arg === "--config") configPath = args[++i];
    else if (arg.startsWith("--config=")) configPath = arg.slice("--config=".length);
    else if (arg === "-h" || arg === "--help") command = "help";
    else if (!arg.startsWith("-")) command = arg;
    else throw new StartupError(`unknown option ${arg}; ${USAGE}`);
  }
  if (args.includes("--config") && !configPath) {
    throw new StartupError("--config needs a file name");
  }
  return { command, configPath, quickStart };
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
      await runtime.drain();
      await server.shutdown();
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

async function main(): Promise<number> {
  const { command, configPath, quickStart } = parseArgs(Deno.args);
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
    case "migrate": {
      const config = await loadConfig(
        Deno.env.toObject(),
        configPath,
        quickStart ? QUICK_START_BASE : {},
      );
      const logger = createLogger(config.log.level);
      if (command === "migrate") await migrateOnly(config, logger);
      else await serve(config, logger, quickStart);
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
  try {
    Deno.exit(await main());
  } catch (e) {
    if (e instanceof StartupError || e instanceof MigrationError) {
      console.error(`startup refused: ${redactUrl(e.message)}`);
      Deno.exit(2);
    }
    console.error(`startup failed: ${redactUrl(e instanceof Error ? e.message : String(e))}`);
    Deno.exit(1);
  }
}
