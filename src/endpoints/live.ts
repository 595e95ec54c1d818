/**
 * The serving state of one instance: the compiled matcher over enabled endpoints of active
 * workspaces, and the binding index (per workspace, a trie of bound nodes: bindings.ts). Both are rebuilt
 * from the store after a change, never per request; each snapshot also carries the serve verdicts
 * judged under it (verdict.ts). A change anywhere (a publish here, a bind on another replica, a key
 * revoked, a pipeline saved or released, a workspace deactivated) is announced on the shared
 * store's channel; every instance, this one included, marks its state stale and rebuilds on the
 * next request. A message lost to a broken connection is bounded by `maxAgeMs`: no state is
 * served longer than that unrebuilt.
 *
 * Decided here (docs/decisions.md#bindings-stay-in-their-workspace): bindings gate only the
 * endpoints of the bound key's own (pinned) workspace. Paths are unique deployment-wide, but one
 * workspace's author binding the root must not lock every other workspace's callers out.
 */
import { liveEndpointKeyBindings } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { BindingTree } from "./bindings.ts";
import { Matcher } from "./matcher.ts";
import { parseNode, parsePattern } from "./path.ts";
import { type EndpointRow, servable } from "./repo.ts";

export const CHANNEL = "endpoints:changed";

export type { BoundKey } from "./bindings.ts";

/** workspace id → that workspace's bound nodes. */
export type BindingIndex = Map<string, BindingTree>;

export interface Snapshot {
  matcher: Matcher<EndpointRow>;
  bindings: BindingIndex;
}

/** Reads every live endpoint key's bindings into the per-workspace index. */
export async function loadBindings(db: Queryable): Promise<BindingIndex> {
  const index: BindingIndex = new Map();
  for (const key of await liveEndpointKeyBindings(db)) {
    let tree = index.get(key.workspace_id);
    if (!tree) index.set(key.workspace_id, tree = new BindingTree());
    for (const b of key.bindings) {
      let node;
      try {
        node = parseNode(b.path);
      } catch {
        continue; // a stored path that no longer parses binds nothing
      }
      tree.add(node.key, node.segments, { keyId: key.id, keyName: key.name, path: b.path });
    }
  }
  return index;
}

export class LiveEndpoints {
  readonly #db: Queryable;
  readonly #shared: SharedStore;
  readonly #logger?: Logger;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #generation = 0;
  #built: { generation: number; at: number; snapshot: Snapshot } | null = null;
  #building: Promise<Snapshot> | null = null;
  #unsubscribe?: () => Promise<void>;
  #waiters: (() => void)[] = [];

  constructor(options: {
    db: Queryable;
    shared: SharedStore;
    logger?: Logger;
    /** The longest a state is served without a rebuild (a lost message's cost); default 60 s. */
    maxAgeMs?: number;
    now?: () => number;
  }) {
    this.#db = options.db;
    this.#shared = options.shared;
    this.#logger = options.logger;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Listens for changes announced by any instance. */
  async open(): Promise<void> {
    this.#unsubscribe = await this.#shared.subscribe(CHANNEL, () => {
      this.#stale();
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Resolves when the next change announcement arrives (tests wait on it). */
  nextAnnouncement(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Announces a committed change to every instance. This instance goes stale at once, so its own
   * next request never serves the old state even before the message comes back.
   */
  async changed(): Promise<void> {
    this.#stale();
    try {
      await this.#shared.publish(CHANNEL, String(Date.now()));
    } catch (e) {
      // The change is committed; other replicas catch up when the channel is back.
      this.#logger?.warn("endpoint change announcement failed", { error: String(e) });
    }
  }

  /** The current state, rebuilt first when a change arrived since the last build. */
  async snapshot(): Promise<Snapshot> {
    for (;;) {
      const built = this.#built;
      if (built && built.generation === this.#generation) {
        if (this.#now() - built.at < this.#maxAgeMs) return built.snapshot;
        this.#stale();
      }
      this.#building ??= this.#build().finally(() => this.#building = null);
      await this.#building;
    }
  }

  #stale(): void {
    this.#generation++;
  }

  async #build(): Promise<Snapshot> {
    // A change arriving while this build reads leaves it stale, and snapshot() builds again.
    const generation = this.#generation;
    const at = this.#now();
    const [rows, bindings] = await Promise.all([servable(this.#db), loadBindings(this.#db)]);
    const matcher = new Matcher<EndpointRow>();
    for (const row of rows) matcher.add(parsePattern(row.path_pattern), row);
    const snapshot = { matcher, bindings };
    this.#built = { generation, at, snapshot };
    return snapshot;
  }
}
