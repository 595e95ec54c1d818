/**
 * The compiled matcher: a trie over path segments. A request walks at most one literal child and
 * the variable child per level (literal first), so the cost follows the path's depth, never the
 * number of published patterns. Because conflicting patterns are refused at publish, at most one
 * pattern matches any URL; the literal-first order only decides which branch is tried first.
 *
 * The trie is patched in place by `add` and `remove`; the same walk finds publish-time conflicts.
 */
import type { Pattern, Segment } from "./path.ts";

interface TrieNode<T> {
  literals: Map<string, TrieNode<T>>;
  variable: TrieNode<T> | null;
  entry: { pattern: Pattern; value: T } | null;
}

function node<T>(): TrieNode<T> {
  return { literals: new Map(), variable: null, entry: null };
}

export interface Match<T> {
  pattern: Pattern;
  value: T;
  /** Path variables by name, decoded. */
  params: Record<string, string>;
}

export class Matcher<T> {
  readonly #root: TrieNode<T> = node();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds (or replaces) the entry of a pattern. */
  add(pattern: Pattern, value: T): void {
    let at = this.#root;
    for (const s of pattern.segments) {
      if ("variable" in s) at = at.variable ??= node();
      else {
        let next = at.literals.get(s.literal);
        if (!next) at.literals.set(s.literal, next = node());
        at = next;
      }
    }
    if (!at.entry) this.#size++;
    at.entry = { pattern, value };
  }

  /** Removes a pattern's entry (by its text); prunes emptied branches. */
  remove(text: string, segments: Segment[]): boolean {
    const trail: [TrieNode<T>, Segment][] = [];
    let at: TrieNode<T> | null | undefined = this.#root;
    for (const s of segments) {
      trail.push([at, s]);
      at = "variable" in s ? at.variable : at.literals.get(s.literal);
      if (!at) return false;
    }
    if (!at.entry || at.entry.pattern.text !== text) return false;
    at.entry = null;
    this.#size--;
    for (let i = trail.length - 1; i >= 0; i--) {
      const [parent, s] = trail[i];
      const child = "variable" in s ? parent.variable : parent.literals.get(s.literal);
      if (!child || child.entry || child.variable || child.literals.size > 0) break;
      if ("variable" in s) parent.variable = null;
      else parent.literals.delete(s.literal);
    }
    return true;
  }

  /** The pattern matching the decoded request segments, with its variables bound. */
  match(segments: string[]): Match<T> | null {
    const found = walk(this.#root, segments, 0);
    if (!found) return null;
    const params: Record<string, string> = {};
    found.pattern.segments.forEach((s, i) => {
      if ("variable" in s) params[s.variable] = segments[i];
    });
    return { pattern: found.pattern, value: found.value, params };
  }

  /** A stored pattern some URL matches together with `segments`, or null. */
  conflictWith(segments: Segment[]): Pattern | null {
    const found = overlap(this.#root, segments, 0);
    return found?.pattern ?? null;
  }

  /** Every stored pattern. */
  patterns(): Pattern[] {
    return this.entries().map((e) => e.pattern);
  }

  /** Every stored pattern with its value (listings such as the OpenAPI document). */
  entries(): { pattern: Pattern; value: T }[] {
    const out: { pattern: Pattern; value: T }[] = [];
    const visit = (n: TrieNode<T>) => {
      if (n.entry) out.push(n.entry);
      for (const c of n.literals.values()) visit(c);
      if (n.variable) visit(n.variable);
    };
    visit(this.#root);
    return out;
  }
}

function walk<T>(
  at: TrieNode<T>,
  segments: string[],
  i: number,
): { pattern: Pattern; value: T } | null {
  if (i === segments.length) return at.entry;
  const literal = at.literals.get(segments[i]);
  const viaLiteral = literal ? walk(literal, segments, i + 1) : null;
  if (viaLiteral) return viaLiteral;
  return at.variable ? walk(at.variable, segments, i + 1) : null;
}

/** Depth-first search for an entry compatible with `segments` at every position. */
function overlap<T>(
  at: TrieNode<T>,
  segments: Segment[],
  i: number,
): { pattern: Pattern } | null {
  if (i === segments.length) return at.entry;
  const s = segments[i];
  if ("variable" in s) {
    for (const child of at.literals.values()) {
      const found = overlap(child, segments, i + 1);
      if (found) return found;
    }
  } else {
    const child = at.literals.get(s.literal);
    const found = child ? overlap(child, segments, i + 1) : null;
    if (found) return found;
  }
  return at.variable ? overlap(at.variable, segments, i + 1) : null;
}
