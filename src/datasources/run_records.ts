/**
 * Datasource records as a workspace's runs see them (bound there, or a global one granted to it),
 * cached per instance: every node of every run, a published endpoint's above all, asks for one,
 * and the row changes only through this domain's writes. A save, update, delete, grant or revoke
 * drops the name here at once and, by a message on the shared store's `datasources.invalidate`
 * channel (beside the pools' `retire` message; each ignores the other's), on every other
 * instance. A message lost to a broken connection is bounded by `maxAgeMs`.
 *
 * A cached record is frozen and shared; its `last_test` is as of the load (runs never read it).
 */
import type { Logger } from "../lib/log.ts";
import { Broadcast, type SharedStore } from "../shared/mod.ts";
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
  readonly #entries = new Map<string, Entry>();
  /** A name to forget, here at once and on every following instance. */
  readonly #forget = new Broadcast<string>(INVALIDATE_CHANNEL, (name) => this.#drop(name));
  #generation = 0;

  constructor(
    load: (workspaceId: string, name: string) => Promise<DatasourceRecord>,
    options: { maxAgeMs?: number; now?: () => number } = {},
  ) {
    this.#load = load;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Follows changes announced by every instance over the shared store. */
  open(shared: SharedStore, logger?: Logger): Promise<void> {
    return this.#forget.open(shared, logger);
  }

  close(): Promise<void> {
    return this.#forget.close();
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

  /** Drops every workspace's record of `name` here at once, then on every other instance. */
  forget(name: string): void {
    this.#forget.send(name);
  }

  #drop(name: string): void {
    this.#generation++;
    for (const key of [...this.#entries.keys()]) {
      if (key.slice(key.indexOf("\u0000") + 1) === name) this.#entries.delete(key);
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
