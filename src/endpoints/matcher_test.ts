import { deepEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import { BindingTree, type Region } from "./bindings.ts";
import { Matcher } from "./matcher.ts";
import { conflicts, parsePattern, type Segment } from "./path.ts";

function matcherOf(...texts: string[]): Matcher<string> {
  const m = new Matcher<string>();
  for (const t of texts) m.add(parsePattern(t), t);
  return m;
}

Deno.test("match() prefers a literal child and falls back to the variable one", () => {
  const m = matcherOf("/orders/latest", "/orders/{id}", "/orders/{id}/lines", "/a/b/c", "/a/{x}/d");
  deepEqual(m.match(["orders", "latest"])?.params, {});
  equal(m.match(["orders", "latest"])?.value, "/orders/latest");
  deepEqual(m.match(["orders", "42"])?.params, { id: "42" });
  equal(m.match(["orders", "latest", "lines"])?.value, "/orders/{id}/lines");
  // The literal branch dead-ends at c; the variable branch still answers.
  deepEqual(m.match(["a", "b", "d"])?.params, { x: "b" });
  equal(m.match(["orders"]), null);
  equal(m.match(["orders", "1", "2"]), null);
  equal(m.match(["nope"]), null);
});

Deno.test("remove() drops one pattern and prunes, add() patches without a rebuild", () => {
  const m = matcherOf("/a/{x}", "/a/{x}/b");
  equal(m.size, 2);
  equal(m.remove("/a/{x}", parsePattern("/a/{x}").segments), true);
  equal(m.match(["a", "1"]), null);
  equal(m.match(["a", "1", "b"])?.value, "/a/{x}/b");
  equal(m.remove("/a/{x}/b", parsePattern("/a/{x}/b").segments), true);
  equal(m.size, 0);
  deepEqual(m.patterns(), []);
  equal(m.remove("/a/{x}/b", parsePattern("/a/{x}/b").segments), false);
  m.add(parsePattern("/a/{y}"), "again");
  deepEqual(m.match(["a", "z"])?.params, { y: "z" });
});

// --- the conflict rule against a brute-force oracle ----------------------------------------------

const FRESH = "zz-fresh";

/** A URL matches a pattern: same length, equal literals, any value under a variable. */
function matchesNaive(p: Segment[], url: string[]): boolean {
  return p.length === url.length && p.every((s, i) => "variable" in s || s.literal === url[i]);
}

/**
 * The oracle: tries every URL whose segments are drawn from the literals either pattern has at that
 * position plus one value neither has, which covers every way a URL can match (a variable's value
 * matters only by being equal or not to the other side's literal).
 */
function someUrlMatchesBoth(a: Segment[], b: Segment[]): boolean {
  if (a.length !== b.length) return false;
  const choices = a.map((s, i) => {
    const lits = [s, b[i]].flatMap((x) => "literal" in x ? [x.literal] : []);
    return [...new Set([...lits, FRESH])];
  });
  const urls: string[][] = [[]];
  for (const options of choices) {
    const next: string[][] = [];
    for (const u of urls) for (const o of options) next.push([...u, o]);
    urls.splice(0, urls.length, ...next);
  }
  return urls.some((u) => matchesNaive(a, u) && matchesNaive(b, u));
}

const segment = fc.oneof(
  fc.constantFrom("a", "b", "c").map((literal): Segment => ({ literal })),
  fc.constantFrom("x", "y").map((variable): Segment => ({ variable })),
);
const segments = fc.array(segment, { minLength: 1, maxLength: 4 });
const text = (s: Segment[]) => "/" + s.map((x) => "variable" in x ? "{v}" : x.literal).join("/");

Deno.test("conflicts() agrees with the brute-force oracle on generated patterns", () => {
  fc.assert(
    fc.property(segments, segments, (a, b) => conflicts(a, b) === someUrlMatchesBoth(a, b)),
    { numRuns: 5000, seed: 13 },
  );
});

Deno.test("the matcher's conflict walk and match() agree with the oracle over a set of patterns", () => {
  fc.assert(
    fc.property(fc.array(segments, { maxLength: 12 }), segments, (stored, probe) => {
      const m = new Matcher<Segment[]>();
      const kept: Segment[][] = [];
      for (const s of stored) {
        // Publish keeps only conflict-free sets, so build one the way publish would.
        if (m.conflictWith(s)) continue;
        m.add({ text: text(s) + `#${kept.length}`, segments: s, variables: [] }, s);
        kept.push(s);
      }
      const expected = kept.find((s) => someUrlMatchesBoth(s, probe)) ?? null;
      const found = m.conflictWith(probe);
      if ((found === null) !== (expected === null)) return false;
      // match(): a concrete URL finds the one stored pattern that matches it, if any.
      const url = probe.map((s) => "variable" in s ? FRESH : s.literal);
      const hit = m.match(url);
      const naive = kept.filter((s) => matchesNaive(s, url));
      return naive.length <= 1 && (hit?.value ?? null) === (naive[0] ?? null);
    }),
    { numRuns: 2000, seed: 13 },
  );
});

// --- the binding walk against a brute-force oracle (issue 22 finding 2) -------------------------

/** The oracle of spec 3 §4.3 item 2: the deepest ancestor of the URL that any bound node names. */
function deciderNaive(bound: { node: Segment[]; key: string }[], url: string[]): string[] | null {
  for (let depth = url.length; depth >= 0; depth--) {
    const keys = bound.filter((b) => matchesNaive(b.node, url.slice(0, depth))).map((b) => b.key);
    if (keys.length > 0) return [...new Set(keys)].sort();
  }
  return null;
}

function inRegion(region: Region, url: string[]): boolean {
  return region.segments.length === url.length &&
    region.segments.every((s, i) =>
      "except" in s ? !s.except.includes(url[i]) : s.literal === url[i]
    );
}

/** Every URL of a pattern's length drawn from the literals either side has, plus a fresh value. */
function urlsFor(pattern: Segment[], nodes: Segment[][]): string[][] {
  let urls: string[][] = [[]];
  pattern.forEach((s, i) => {
    const lits = [s, ...nodes.map((n) => n[i])].flatMap((x) =>
      x && "literal" in x ? [x.literal] : []
    );
    const options = [...new Set([...lits, FRESH])];
    urls = urls.flatMap((u) => options.map((o) => [...u, o]));
  });
  return urls.filter((u) => matchesNaive(pattern, u));
}

const binding = fc.record({
  node: fc.array(segment, { minLength: 0, maxLength: 4 }),
  key: fc.constantFrom("k1", "k2", "k3"),
});
const keysOf = (d: { keyId: string }[] | null) =>
  d === null ? null : [...new Set(d.map((b) => b.keyId))].sort();

Deno.test("issue 22 finding 2: the walk over the request path's ancestors agrees with the oracle", () => {
  fc.assert(
    fc.property(fc.array(binding, { maxLength: 8 }), segments, (bound, pattern) => {
      const tree = new BindingTree();
      for (const b of bound) {
        tree.add(text(b.node), b.node, { keyId: b.key, keyName: b.key, path: text(b.node) });
      }
      const urls = urlsFor(pattern, bound.map((b) => b.node));
      const regions = tree.regions(pattern);
      if (!regions) return false;
      return urls.every((url) => {
        const expected = deciderNaive(bound, url);
        // decide() on the URL, and the one region of the pattern holding it, both agree.
        const holding = regions.filter((r) => inRegion(r, url));
        return JSON.stringify(keysOf(tree.decide(url))) === JSON.stringify(expected) &&
          holding.length === 1 &&
          JSON.stringify(keysOf(holding[0].decider)) === JSON.stringify(expected);
      });
    }),
    { numRuns: 3000, seed: 22 },
  );
});
