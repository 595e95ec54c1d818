/**
 * Builds the single executable (`compile.sh` runs this): `deno compile` of main.ts with every file
 * of src/lib/assets.ts's EMBEDDED list, a fresh build record, the npm packages the program reaches
 * and the DuckDB native addon of the target platform only. Then, for the machine's own target,
 * it runs the result once (`version`) and deletes it if it does not answer as this service.
 *
 *   sh compile.sh [--target TRIPLE] [--output FILE] [--no-check]
 *
 * `deno compile` writes the program onto Deno's `denort` runtime, which it downloads from Deno's
 * release site unless `DENORT_BIN` names a local copy (of the same Deno version and the target's
 * platform). See docs/development.md, "Building the executable".
 */
import { dirname, resolve } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import { EMBEDDED } from "../src/lib/assets.ts";

/** `deno compile --target` values, with the suffix of `@duckdb/node-bindings-<platform>`. */
export const TARGETS: Record<string, { duckdb: string; exe: string }> = {
  "x86_64-unknown-linux-gnu": { duckdb: "linux-x64", exe: "" },
  "aarch64-unknown-linux-gnu": { duckdb: "linux-arm64", exe: "" },
  "x86_64-apple-darwin": { duckdb: "darwin-x64", exe: "" },
  "aarch64-apple-darwin": { duckdb: "darwin-arm64", exe: "" },
  "x86_64-pc-windows-msvc": { duckdb: "win32-x64", exe: ".exe" },
  "aarch64-pc-windows-msvc": { duckdb: "win32-arm64", exe: ".exe" },
};

const ROOT = new URL("../", import.meta.url);
const BUILD_INFO = new URL("build/build_info.json", ROOT);

function fail(message: string): never {
  console.error(`compile: ${message}`);
  Deno.exit(1);
}

function parseArgs(args: string[]) {
  let target = Deno.build.target;
  let output: string | undefined;
  let check = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--target") target = args[++i] ?? "";
    else if (arg === "--output" || arg === "-o") output = args[++i];
    else if (arg === "--no-check") check = false;
    else fail(`unknown argument ${arg}; usage: compile.sh [--target TRIPLE] [--output FILE]`);
  }
  const platform = TARGETS[target];
  if (!platform) fail(`unknown target ${target}; one of ${Object.keys(TARGETS).join(", ")}`);
  const host = target === Deno.build.target;
  output = resolve(output ?? `dist/pipeline-service${host ? "" : `-${target}`}${platform.exe}`);
  return { target, platform, host, output, check };
}

async function text(cmd: string, args: string[]): Promise<string | null> {
  try {
    const out = await new Deno.Command(cmd, { args, cwd: ROOT, stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

/**
 * Folders of npm packages that nothing loads at run time and that `deno compile` cannot take:
 * bintrees (prom-client → tdigest) ships `test/perf/100k`, a file of 100,000 signed numbers one
 * per line, which the compiler parses as one expression of 100,000 nested subtractions and
 * overflows its stack on.
 */
const UNLOADED = [["bintrees", "test"], ["bintrees", "examples"]];

/**
 * What the build leaves out of the npm cache it embeds: every `@duckdb/node-bindings-*` package
 * but the target's (`duckdb.js` names all of them, so the compiler would embed each one it finds,
 * 70 MB apiece, the musl twin included), and the UNLOADED folders.
 */
async function excludedNpmPaths(keepDuckdb: string): Promise<string[]> {
  const info = JSON.parse(await text(Deno.execPath(), ["info", "--json"]) ?? "{}");
  const registry = `${info.npmCache}/registry.npmjs.org`;
  const versions = async (dir: string) =>
    (await names(dir)).filter((v) => v !== "registry.json").map((v) => `${dir}/${v}`);
  const out: string[] = [];
  for (const pkg of await names(`${registry}/@duckdb`)) {
    if (!pkg.startsWith("node-bindings-") || pkg === `node-bindings-${keepDuckdb}`) continue;
    out.push(...await versions(`${registry}/@duckdb/${pkg}`));
  }
  for (const [pkg, folder] of UNLOADED) {
    for (const version of await versions(`${registry}/${pkg}`)) out.push(`${version}/${folder}`);
  }
  return out;
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
  } catch {
    return [];
  }
}

/** Runs the built program once: what it says to `version`, or null unless it is this service. */
async function answersVersion(output: string): Promise<string | null> {
  const child = new Deno.Command(output, {
    args: ["version"],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const out = await child.output();
  clearTimeout(timer);
  const said = new TextDecoder().decode(out.stdout).trim();
  return out.success && said.startsWith(`${denoJson.version} (commit `) ? said : null;
}

async function main(): Promise<void> {
  const { target, platform, host, output, check } = parseArgs(Deno.args);
  const denort = Deno.env.get("DENORT_BIN");
  if (denort) {
    const info = await Deno.stat(denort).catch(() => null);
    if (!info?.isFile) fail(`DENORT_BIN=${denort} is not a file`);
  }
  const commit = await text("git", ["rev-parse", "HEAD"]) ?? "unknown";
  await Deno.mkdir(new URL("build/", ROOT), { recursive: true });
  await Deno.mkdir(dirname(output), { recursive: true });
  await Deno.writeTextFile(
    BUILD_INFO,
    JSON.stringify({
      version: denoJson.version,
      commit,
      build_time: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      target,
    }) + "\n",
  );
  const args = [
    "compile",
    "--allow-all",
    "--target",
    target,
    // Unpacked to disk at first start (a hidden folder beside the executable, else under the
    // user's data folder): DuckDB's addon loads libduckdb from its own directory, which an addon
    // lifted alone out of the in-memory file system lacks (denoland/deno#36626).
    "--self-extracting",
    "--exclude-unused-npm",
    ...check ? [] : ["--no-check"],
    ...EMBEDDED.flatMap((path) => ["--include", path]),
    ...(await excludedNpmPaths(platform.duckdb)).flatMap((path) => ["--exclude", path]),
    "--output",
    output,
    "main.ts",
  ];
  const started = performance.now();
  let status: Deno.CommandStatus;
  try {
    status = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT }).spawn().status;
  } finally {
    // A checkout describes itself from git; a record left behind would outlive its commit.
    await Deno.remove(BUILD_INFO).catch(() => {});
  }
  if (!status.success) {
    fail(
      denort ? "deno compile failed" : "deno compile failed. Without access to Deno's release " +
        `site, set DENORT_BIN to a denort ${Deno.version.deno} runtime for ${target}`,
    );
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const size = ((await Deno.stat(output)).size / 2 ** 20).toFixed(0);
  console.log(`built ${output} for ${target}: ${size} MiB in ${seconds} s (${commit})`);
  if (!host) return;
  const said = await answersVersion(output);
  if (!said) {
    await Deno.remove(output).catch(() => {});
    fail(
      `${output} does not run as the service (removed)` +
        (denort ? `: is DENORT_BIN a denort runtime of Deno ${Deno.version.deno}?` : ""),
    );
  }
  console.log(`${output} version: ${said}`);
}

if (import.meta.main) await main();
