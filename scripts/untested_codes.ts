/**
 * Lists catalogue codes no test asserts. A code counts as tested by a `*_test.ts` file that names
 * it in quotes, or that reads it through the lifecycle's kind descriptor (`….codes.<key>`, which
 * the version tests run for both kinds). A code tested only in files that never register a
 * both-store test (forEachStore, forEachStoreKind, bothStores, worldTest) is listed as
 * single-store.
 *
 *   deno run --allow-read scripts/untested_codes.ts [prefix ...]   (default: pipeline. template.)
 *
 * Exits non-zero when any code is untested. It reads text, so it proves a code is named by a
 * test, not that the assertion is a good one: that is for review.
 */
import { catalogue } from "../src/errors/catalogue.ts";
import { PIPELINE_KIND, TEMPLATE_KIND } from "../src/versions/kinds.ts";

const BOTH_STORES = /\b(forEachStore|forEachStoreKind|bothStores|worldTest)\(/;

async function* testFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* testFiles(path);
    else if (entry.name.endsWith("_test.ts")) yield path;
  }
}

/** Code → the test files naming it, and whether each registers both-store tests. */
export async function coverage(
  roots: string[],
  codes: string[],
): Promise<Map<string, { file: string; bothStores: boolean }[]>> {
  const found = new Map(codes.map((c) => [c, [] as { file: string; bothStores: boolean }[]]));
  for (const root of roots) {
    for await (const file of testFiles(root)) {
      const text = await Deno.readTextFile(file);
      const bothStores = BOTH_STORES.test(text);
      const named = new Set(codes.filter((c) => text.includes(`"${c}"`)));
      for (const [, key] of text.matchAll(/\.codes\.([a-z_]+)/g)) {
        for (const kind of [PIPELINE_KIND, TEMPLATE_KIND]) {
          const code = new Map<string, string>(Object.entries(kind.codes)).get(key);
          if (code && found.has(code)) named.add(code);
        }
      }
      for (const code of named) found.get(code)!.push({ file, bothStores });
    }
  }
  return found;
}

if (import.meta.main) {
  const prefixes = Deno.args.length > 0 ? Deno.args : ["pipeline.", "template."];
  const codes = Object.keys(catalogue).filter((c) => prefixes.some((p) => c.startsWith(p)));
  const found = await coverage(["src", "tests"], codes);
  const untested = codes.filter((c) => found.get(c)!.length === 0);
  const single = codes.filter((c) =>
    found.get(c)!.length > 0 && !found.get(c)!.some((f) => f.bothStores)
  );
  console.log(`${codes.length} codes under ${prefixes.join(", ")}`);
  console.log(`untested (${untested.length}):`);
  for (const c of untested) console.log(`  ${c}`);
  console.log(`tested on one store only (${single.length}):`);
  for (const c of single) {
    console.log(`  ${c}  (${found.get(c)!.map((f) => f.file).join(", ")})`);
  }
  if (untested.length > 0) Deno.exit(1);
}
