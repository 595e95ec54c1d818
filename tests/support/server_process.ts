/**
 * `main.ts` in a real subprocess, as an operator runs it: one-shot commands (`run`) and a serving
 * instance (`ServerProcess`) whose JSON log lines are kept and whose "listening" line resolves
 * `ready`.
 */
import type { Json } from "./harness.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** The parent's environment without any service setting, so the developer's own never leak in. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k]) => !k.startsWith("SERVICE_")),
  );
  return { ...env, ...extra };
}

export async function run(args: string[], env: Record<string, string>, stdin?: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    env: childEnv(env),
    clearEnv: true,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Where and as what a `ServerProcess` runs: by default `deno run main.ts` in the test's directory. */
export interface ServerProcessOptions {
  /** The working directory (default: the test runner's). */
  cwd?: string;
  /** The program and its leading arguments, before `serve` (default: `deno run -A main.ts`). */
  program?: string[];
}

/** A running `main.ts serve`; resolves once it logged "listening". */
export class ServerProcess {
  #child: Deno.ChildProcess;
  #lines: string[] = [];
  #stderr = "";
  #drained: Promise<unknown>;
  url = "";
  ready: Promise<void>;

  constructor(
    env: Record<string, string>,
    extraArgs: string[] = [],
    options: ServerProcessOptions = {},
  ) {
    const [program, ...leading] = options.program ?? [Deno.execPath(), "run", "--allow-all", MAIN];
    this.#child = new Deno.Command(program, {
      args: [...leading, "serve", ...extraArgs],
      cwd: options.cwd,
      env: childEnv({ SERVICE_HTTP_PORT: "0", ...env }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = this.#child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (t) => void (this.#stderr += t) }),
    );
    let stdout!: Promise<void>;
    this.ready = new Promise((resolve, reject) => {
      let buffer = "";
      stdout = this.#child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
        new WritableStream({
          write: (text) => {
            buffer += text;
            let nl;
            while ((nl = buffer.indexOf("\n")) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              this.#lines.push(line);
              const parsed = JSON.parse(line);
              if (parsed.message === "listening") {
                this.url = parsed.url;
                resolve();
              }
            }
          },
        }),
      );
      stdout.catch(reject);
      this.#child.status.then((s) =>
        reject(new Error(`exited ${s.code} before listening: ${this.#stderr}`))
      );
    });
    this.#drained = Promise.allSettled([stdout, stderr]);
  }

  get lines(): string[] {
    return this.#lines;
  }

  get stderr(): string {
    return this.#stderr;
  }

  logs(): Json[] {
    return this.#lines.map((l) => JSON.parse(l));
  }

  async stop(signal: Deno.Signal = "SIGTERM"): Promise<number> {
    try {
      this.#child.kill(signal);
    } catch { /* already gone */ }
    const { code } = await this.#child.status;
    await this.#drained;
    return code;
  }
}
