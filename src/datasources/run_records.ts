/**
 * Datasource records as a workspace's runs see them (bound there, or a global one granted to it),
 * cached per instance: every node of every run, a published endpoint's above all, asks for one,
 * and the row changes only through this domain's writes. A save, update, delete, grant or revoke
 * drops the name here at once and, by a `forget` message on the shared store's
 * `datasources.invalidate` channel (beside the pools' `retire`, which pool managers ignore it
 * for), on every other instance. A message lost to a broken connection is bounded by `maxAgeMs`.
 *
 * A cached record is frozen and shared; its `last_test` is as of the load (runs never read it).
 */
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "../shared/mod.ts";
import { INVALIDATE_CHANNEL } from "./connectors/mod.ts";
import type { DatasourceRecord } from "./types.ts";

const MAX_ENTRIES = 10_000;

interface Entry {
  at: number;
  record: Promise<DatasourceRecord>;
}

export class RunRecords {
  readonly #load: (workspaceId: string, name: string) => Promise<DatasourceRecord>;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #instance = crypto.randomUUID();
  readonly #entries = new Map<string, Entry>();
  #generation = 0;
  #shared?: SharedStore;
  #logger?: Logger;
  #unsubscribe?: () => Promise<void>;

  constructor(
    load: (workspaceId: string, name: string) => Promise<DatasourceRecord>,
    options: { maxAgeMs?: number; now?: () => number } = {},
  ) {
    this.#load = load;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Follows changes announced by every instance over the shared store. */
  async open(shared: SharedStore, logger?: Logger): Promise<void> {
    this.#shared = shared;
    this.#logger = logger;
    this.#unsubscribe = await shared.subscribe(INVALIDATE_CHANNEL, (message) => {
      try {
        const m = JSON.parse(message) as { forget?: unknown; from?: unknown };
        if (typeof m.forget === "string" && m.from !== this.#instance) this.forget(m.forget);
      } catch {
        // The pool manager logs malformed messages on this channel.
      }
    });
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** The record, loaded once and then served from memory until a change or `maxAgeMs`. */
  get(workspaceId: string, name: string): Promise<DatasourceRecord> {
    const key = `${workspaceId}\u0000${name}`;
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#maxAgeMs) return hit.record;
    const generation = this.#generation;
    const record = this.#load(workspaceId, name).then(deepFreeze);
    const entry = { at: now, record };
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, entry);
    const drop = () => this.#entries.get(key) === entry && this.#entries.delete(key);
    // Refusals (not found) and failed reads are not remembered; nor is a read that a change
    // overtook, which may have seen the row before it.
    record.then(() => generation !== this.#generation && drop(), drop);
    return record;
  }

  /** Drops every workspace's record of `name` on this instance. */
  forget(name: string): void {
    this.#generation++;
    for (const key of [...this.#entries.keys()]) {
      if (key.slice(key.indexOf("\u0000") + 1) === name) this.#entries.delete(key);
    }
  }

  /** Drops the name here at once, then on every other instance. */
  async publishForget(name: string): Promise<void> {
    this.forget(name);
    if (!this.#shared) return;
    try {
      await this.#shared.publish(
        INVALIDATE_CHANNEL,
        JSON.stringify({ forget: name, from: this.#instance }),
      );
    } catch (error) {
      // The change is committed; other instances catch up within `maxAgeMs`.
      this.#logger?.warn("datasource change announcement failed", { datasource: name, error });
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
