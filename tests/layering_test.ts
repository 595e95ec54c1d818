/**
 * The layers of docs/architecture.md, checked: reads the rules from docs/layering.json and every
 * import under src/, and fails naming each import that runs against them, each import that enters
 * another folder around its mod.ts, and any cycle between folders.
 */
import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Rules {
  infrastructure: Record<string, string[]>;
  domains: { may_import: string[]; ranks: string[][] };
  front_ends: { folders: string[]; services: string; may_not_import: string[] };
  open_surface: { folders: string[] };
  forbidden_in_domains_and_infrastructure: { packages: string[]; paths: string[] };
  wiring: { domain_wiring_file: string; domain_wiring_may_import: string[] };
  tests: { test_file: string; fixture_file: string };
}

const rules: Rules = JSON.parse(await Deno.readTextFile(join(ROOT, "docs/layering.json")));
const infrastructure = new Map(Object.entries(rules.infrastructure));
const rank = new Map(rules.domains.ranks.flatMap((folders, i) => folders.map((f) => [f, i])));
const frontEnds = new Set(rules.front_ends.folders);
const openSurface = new Set(rules.open_surface.folders);
const isTest = new RegExp(rules.tests.test_file);
const isFixture = new RegExp(rules.tests.fixture_file);
const isDomainWiring = new RegExp(rules.wiring.domain_wiring_file);

/** One import: the importing file and the target, both relative to the repository root. */
export interface Import {
  file: string;
  target: string;
}

const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s(?:[^"';]*?\sfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The imports of one file's text; a relative target is resolved against the file. */
export function importsOf(file: string, text: string): Import[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return Array.from(code.matchAll(SPECIFIER), (m) => {
    const spec = m[1] ?? m[2];
    const target = spec.startsWith(".") ? join(file, "..", spec) : spec;
    return { file, target };
  });
}

/** `src/<folder>/…` → folder; a file directly under src/ → "" (wiring); elsewhere → null. */
function folderOf(path: string): string | null {
  const parts = path.split("/");
  if (parts[0] !== "src") return null;
  return parts.length === 2 ? "" : parts[1];
}

function kindOf(folder: string): "infrastructure" | "domain" | "front end" | "wiring" | "unknown" {
  if (folder === "") return "wiring";
  if (infrastructure.has(folder)) return "infrastructure";
  if (rank.has(folder)) return "domain";
  if (frontEnds.has(folder)) return "front end";
  return "unknown";
}

/** May `file` in folder `from` import folder `to` at all (surfaces aside)? */
function allowed(file: string, from: string, to: string): boolean {
  if (from === to) return true;
  const kind = kindOf(from);
  if (kind === "domain" && isDomainWiring.test(file)) {
    if (rules.wiring.domain_wiring_may_import.includes(to)) return true;
  }
  if (kindOf(to) === "unknown" || kindOf(to) === "wiring") return false;
  if (kind === "wiring") return true;
  if (kind === "front end") {
    return kindOf(to) !== "front end" && !rules.front_ends.may_not_import.includes(to);
  }
  if (kind === "infrastructure") return infrastructure.get(from)!.includes(to);
  if (kind === "domain") {
    if (rules.domains.may_import.includes(to)) return true;
    return rank.has(to) && rank.get(to)! <= rank.get(from)!;
  }
  return false;
}

/** What is wrong with one import, or null. */
export function violation({ file, target }: Import): string | null {
  const from = folderOf(file);
  if (from === null) return null;
  const where = `${file} imports ${target}`;
  if (kindOf(from) === "unknown") return `${where}: src/${from}/ is not in docs/layering.json`;
  const test = isTest.test(file);
  const confined = kindOf(from) === "domain" || kindOf(from) === "infrastructure";
  if (!target.includes("/") || !target.startsWith("src/")) {
    if (target.startsWith("tests/")) {
      return test ? null : `${where}: only *_test.ts files under src/ may import tests/`;
    }
    const { packages, paths } = rules.forbidden_in_domains_and_infrastructure;
    // `npm:hono@4/…` and `hono/…` name the same package.
    const name = target.replace(/^(npm|jsr):\/?/, "").replace(
      /^(@?[^@/]+(?:\/[^@/]+)?)@[^/]*/,
      "$1",
    );
    const banned = packages.some((p) => name === p || name.startsWith(`${p}/`)) ||
      paths.some((p) => target.startsWith(p));
    if (confined && banned) return `${where}: a ${kindOf(from)} folder stays free of front ends`;
    if (target.startsWith("ui/") && kindOf(from) !== "front end") {
      return `${where}: only a front end imports ui/`;
    }
    return null;
  }
  const to = folderOf(target)!;
  if (to === from) return null;
  if (kindOf(from) === "front end" && target === rules.front_ends.services) return null;
  if (!allowed(file, from, to)) {
    return `${where}: ${from || "wiring"} (${kindOf(from)}) may not import ${to || "wiring"}`;
  }
  if (openSurface.has(to)) return null;
  if (target === `src/${to}/mod.ts`) return null;
  if ((test || isFixture.test(file)) && isFixture.test(target)) return null;
  return `${where}: enter src/${to}/ through its mod.ts`;
}

/** Folder → the folders it imports (tests aside: a test may reach a fixture of any lower rank). */
export function folderGraph(imports: Import[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { file, target } of imports) {
    const from = folderOf(file);
    const to = folderOf(target);
    if (!from || !to || from === to || isTest.test(file)) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

/** The cycles of `graph`, each as a path that returns to its start. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(ROOT, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

async function importsUnder(dir: string): Promise<Import[]> {
  const all: Import[] = [];
  for await (const file of sources(dir)) {
    all.push(...importsOf(file, await Deno.readTextFile(join(ROOT, file))));
  }
  return all;
}

const srcImports = () => importsUnder("src");

/** The views under ui/ are a front end too: no store, no repository, whatever the path. */
export function uiViolation({ file, target }: Import): string | null {
  if (!file.startsWith("ui/") || isTest.test(file)) return null;
  const to = target.startsWith("src/") ? folderOf(target) : null;
  if (to !== null && rules.front_ends.may_not_import.includes(to)) {
    return `${file} imports ${target}: ui/ holds no store`;
  }
  if (/^src\/.*\brepo\.ts$/.test(target)) {
    return `${file} imports ${target}: ui/ holds no repository`;
  }
  return null;
}

Deno.test("every import under src/ keeps the layering of docs/layering.json", async () => {
  const imports = await srcImports();
  equal(imports.length > 500, true, "the scan found the imports");
  deepEqual(imports.map(violation).filter((v) => v !== null), []);
});

Deno.test("the views under ui/ import no store or repository", async () => {
  const imports = await importsUnder("ui");
  equal(imports.length > 50, true, "the scan found the imports");
  deepEqual(imports.map(uiViolation).filter((v) => v !== null), []);
});

Deno.test("the folders under src/ import each other without a cycle", async () => {
  deepEqual(cycles(folderGraph(await srcImports())), []);
});

Deno.test("the layering check refuses what docs/architecture.md rules out", () => {
  const refused = (file: string, target: string) => violation({ file, target }) !== null;
  const cases: [string, string, boolean][] = [
    ["src/lib/ids.ts", "src/errors/mod.ts", true],
    ["src/errors/app_error.ts", "src/lib/ids.ts", false],
    ["src/store/db.ts", "src/audit/mod.ts", true],
    ["src/workspaces/members.ts", "src/identity/mod.ts", false],
    ["src/workspaces/members.ts", "src/identity/types.ts", true],
    ["src/identity/users.ts", "src/workspaces/mod.ts", true],
    ["src/pipelines/service.ts", "src/executions/mod.ts", true],
    ["src/templates/service.ts", "src/versions/mod.ts", false],
    ["src/pipelines/service.ts", "hono", true],
    ["src/executions/run.ts", "preact/hooks", true],
    ["src/executions/run.ts", "npm:hono@4.13.19/http-exception", true],
    ["src/identity/users.ts", "npm:@modelcontextprotocol/server@2.4.0", true],
    ["src/identity/users.ts", "npm:zod@4", false],
    ["src/versions/engine.ts", "ui/render.tsx", true],
    ["src/http/app.tsx", "ui/render.tsx", false],
    ["src/http/app.tsx", "src/identity/types.ts", true],
    ["src/http/routes/executions.ts", "src/store/mod.ts", true],
    ["src/mcp/server.ts", "src/store/mod.ts", true],
    ["src/http/routes/endpoints.ts", "src/endpoints/repo.ts", true],
    ["src/http/routes/endpoints.ts", "src/audit/mod.ts", false],
    ["src/executions/executor_fixtures.ts", "tests/support/datasources.ts", true],
    ["src/executions/executor_test.ts", "tests/support/stores.ts", false],
    ["src/templates/pins_test.ts", "src/versions/test_fixtures.ts", false],
    ["src/templates/pins.ts", "src/versions/test_fixtures.ts", true],
    ["src/runtime.ts", "src/http/mod.ts", false],
    ["src/executions/wiring.ts", "src/config/mod.ts", false],
    ["src/executions/service.ts", "src/config/mod.ts", true],
    ["src/executions/executor_fixtures.ts", "src/versions/test_fixtures.ts", false],
    ["src/nowhere/x.ts", "src/lib/ids.ts", true],
  ];
  deepEqual(
    cases.map(([file, target]) => [file, target, refused(file, target)]),
    cases,
  );
  deepEqual(
    importsOf(
      "src/a/b.ts",
      'import { x } from "../c/mod.ts";\nexport * from "./d.ts";\n// import "no"\nawait import("hono");',
    ),
    [
      { file: "src/a/b.ts", target: "src/c/mod.ts" },
      { file: "src/a/b.ts", target: "src/a/d.ts" },
      { file: "src/a/b.ts", target: "hono" },
    ],
  );
  deepEqual(cycles(new Map([["a", new Set(["b"])], ["b", new Set(["a"])]])), [["a", "b", "a"]]);
  equal(uiViolation({ file: "ui/pages/x.tsx", target: "src/store/mod.ts" }) !== null, true);
  equal(uiViolation({ file: "ui/pages/x.tsx", target: "src/audit/repo.ts" }) !== null, true);
  equal(uiViolation({ file: "ui/pages/x.tsx", target: "src/audit/mod.ts" }), null);
});
