/**
 * The binding walk (docs/decisions.md#the-nearest-binding-decides) over one workspace's bindings: a
 * trie of the bound tree nodes, built once per serving snapshot, so a request costs a walk over its
 * own segments and never a store read.
 *
 * A binding names a node: `/`, a folder such as `/sales/eu`, or a node with variables such as
 * `/p/lit/{v}`. A variable in a node stands for any one segment, so a node names every concrete
 * path it matches, and a binding on it is a binding on each of those paths. The request path's
 * ancestors are concrete (`/p/lit/secret`, `/p/lit`, `/p`, `/`): walked from the deepest, the
 * first that any bound node names decides, and the keys bound to every node naming it decide
 * together (`/p/lit/secret` and `/p/lit/{v}` both bound: either's keys pass there). A literal
 * node matches the request's percent-decoded segment exactly, as the matcher does.
 *
 * The same trie splits a pattern's URLs into the classes the walk cannot tell apart (`regions`),
 * which is how the OpenAPI document lists exactly what a key may call.
 */
import type { Segment } from "./path.ts";

export interface BoundKey {
  keyId: string;
  keyName: string;
  /** The binding's path as written. */
  path: string;
}

interface TrieNode {
  literals: Map<string, TrieNode>;
  variable: TrieNode | null;
  bound: BoundKey[];
}

const trieNode = (): TrieNode => ({ literals: new Map(), variable: null, bound: [] });

/** One segment of a region: a literal, or a variable with the values it does not take there. */
export type RegionSegment =
  | { literal: string; variable?: string }
  | { variable: string; except: string[] };

/** URLs of a pattern that the walk judges alike; `decider` null means no bound ancestor. */
export interface Region {
  segments: RegionSegment[];
  decider: BoundKey[] | null;
}

export class BindingTree {
  readonly #root = trieNode();
  /** Tree key (`/orders/{}`) → keys bound there, for reading a node back. */
  readonly #byKey = new Map<string, BoundKey[]>();

  add(key: string, segments: Segment[], bound: BoundKey): void {
    let at = this.#root;
    for (const s of segments) {
      if ("variable" in s) at = at.variable ??= trieNode();
      else {
        let next = at.literals.get(s.literal);
        if (!next) at.literals.set(s.literal, next = trieNode());
        at = next;
      }
    }
    at.bound.push(bound);
    const list = this.#byKey.get(key) ?? [];
    list.push(bound);
    this.#byKey.set(key, list);
  }

  /** The keys bound on one node, by its tree key. */
  get(key: string): BoundKey[] | undefined {
    return this.#byKey.get(key);
  }

  /** The keys of the deepest bound ancestor of a request path (decoded segments), or null. */
  decide(segments: string[]): BoundKey[] | null {
    const levels: TrieNode[][] = [[this.#root]];
    let frontier = levels[0];
    for (const s of segments) {
      const next: TrieNode[] = [];
      for (const n of frontier) {
        const literal = n.literals.get(s);
        if (literal) next.push(literal);
        if (n.variable) next.push(n.variable);
      }
      if (next.length === 0) break;
      levels.push(frontier = next);
    }
    return deepestBound(levels);
  }

  /**
   * The pattern's URLs split into regions the walk judges alike: at each variable of the pattern
   * a region per literal some bound node puts there, and one for every other value. Null when
   * there would be more than `max` (a pattern split by that many bindings is not described).
   */
  regions(pattern: Segment[], max = 256): Region[] | null {
    const out: Region[] = [];
    const visit = (i: number, levels: TrieNode[][], chosen: RegionSegment[]): boolean => {
      if (i === pattern.length) {
        out.push({ segments: chosen, decider: deepestBound(levels) });
        return out.length <= max;
      }
      const frontier = levels[levels.length - 1];
      const step = (literal: string | null) => {
        const next: TrieNode[] = [];
        for (const n of frontier) {
          const child = literal === null ? undefined : n.literals.get(literal);
          if (child) next.push(child);
          if (n.variable) next.push(n.variable);
        }
        return next.length === 0 ? levels : [...levels, next];
      };
      // Past the deepest bound node's reach nothing splits: the frontier no longer grows.
      const reached = levels.length === i + 1;
      const s = pattern[i];
      if ("literal" in s) return visit(i + 1, reached ? step(s.literal) : levels, [...chosen, s]);
      const literals = reached
        ? [...new Set(frontier.flatMap((n) => [...n.literals.keys()]))].sort()
        : [];
      for (const literal of literals) {
        const segment = { literal, variable: s.variable };
        if (!visit(i + 1, step(literal), [...chosen, segment])) return false;
      }
      const other = { variable: s.variable, except: literals };
      return visit(i + 1, reached ? step(null) : levels, [...chosen, other]);
    };
    return visit(0, [[this.#root]], []) ? out : null;
  }
}

function deepestBound(levels: TrieNode[][]): BoundKey[] | null {
  for (let depth = levels.length - 1; depth >= 0; depth--) {
    const bound = levels[depth].flatMap((n) => n.bound);
    if (bound.length > 0) return bound;
  }
  return null;
}
