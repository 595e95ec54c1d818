/**
 * Two writers holding the same body hash: exactly one wins, on both stores. On PostgreSQL the
 * writers run on separate connections (two pools, as two replicas would) and really overlap. On
 * SQLite they interleave on one connection (serialised by its transaction lock), and two separate
 * processes race on one file (serialised by SQLite's write lock and busy timeout).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore, freshStore } from "../../tests/support/stores.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { AppError } from "../errors/mod.ts";
import { type Db, migrate } from "../store/mod.ts";
import * as repo from "./repo.ts";
import { VersionLifecycle } from "./service.ts";
import { bodyOf, releasedOne, type World, worlds } from "./test_fixtures.ts";
import type { SaveResult } from "./types.ts";

const ROUNDS = 25;

async function workingHash(w: World, id: string): Promise<string> {
  return (await w.life.view(w.workspaceId, id)).working!.body_hash;
}

/** Asserts one fulfilled and the rest the kind's conflict naming the winner's hash and author. */
function oneWinner(
  w: World,
  results: PromiseSettledResult<SaveResult>[],
  authors: string[],
): SaveResult {
  const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [{ r: r.value, i }] : []));
  equal(won.length, 1, `exactly one winner, got ${won.length}`);
  const winner = won[0].r;
  for (const r of results) {
    if (r.status === "fulfilled") continue;
    const e = r.reason;
    ok(e instanceof AppError, String(e));
    equal(e.code, w.k.codes.conflict);
    equal(e.details.current_hash, winner.version.body_hash);
    equal(e.details.author, authors[won[0].i]);
  }
  return winner;
}

/** Alternates an in-place race (a draft exists) and a first-write race (only a release). */
async function raceRounds(w: World, lives: VersionLifecycle[], id: string, name: string) {
  const actors = lives.map((_, i) => (i % 2 === 0 ? w.asAlice : w.asBob));
  for (let round = 0; round < ROUNDS; round++) {
    const hash = await workingHash(w, id);
    const results = await Promise.allSettled(
      lives.map((life, i) =>
        life.update(actors[i], id, hash, { body: bodyOf(w.k, name, `r${round}-w${i}`) })
      ),
    );
    const winner = oneWinner(w, results, actors.map((a) => a.actor.userId));
    equal(await workingHash(w, id), winner.version.body_hash);
    if (round % 2 === 1) await w.life.release(w.asAlice, id, winner.version.body_hash);
  }
  // One draft per first-write round, never two: the numbers are consecutive and distinct.
  const metas = await w.life.versions(w.workspaceId, id);
  deepEqual(metas.map((m) => m.version), metas.map((_, i) => i + 1));
  equal(metas.filter((m) => m.status === "DRAFT").length, 1);
}

forEachStore("concurrent saves with one hash: exactly one wins per round", async (db) => {
  for (const w of await worlds(db)) {
    const { id, name } = await releasedOne(w);
    const lives = [0, 1, 2, 3].map(() =>
      new VersionLifecycle({ db, kind: w.k, authoringEnabled: true })
    );
    await raceRounds(w, lives, id, name);
  }
});

forEachStore("a release racing a save of the same draft loses neither", async (db) => {
  // Save first: the release's hash is stale. Release first: the draft's hash is now the current
  // release's, so the save is a first write after a release and opens the next draft. Either
  // way, what was released is exactly the draft both saw, and the save's body is not lost.
  for (const w of await worlds(db)) {
    const { id, name, hash } = await releasedOne(w);
    let base = hash;
    for (let round = 0; round < 10; round++) {
      const drafted = bodyOf(w.k, name, `d${round}`);
      const saved = bodyOf(w.k, name, `s${round}`);
      const h = (await w.life.update(w.asAlice, id, base, { body: drafted })).version.body_hash;
      const [rel, save] = await Promise.allSettled([
        w.life.release(w.asBob, id, h),
        w.life.update(w.asAlice, id, h, { body: saved }),
      ]);
      equal(save.status, "fulfilled", `round ${round}: the save is never refused`);
      const view = await w.life.view(w.workspaceId, id);
      deepEqual(view.working?.body, saved);
      equal(view.working?.status, "DRAFT");
      if (rel.status === "fulfilled") {
        deepEqual(
          (await w.life.version(w.workspaceId, id, rel.value.version.version)).body,
          drafted,
        );
        equal(view.working!.version, rel.value.version.version + 1);
      } else {
        equal((rel.reason as AppError).code, w.k.codes.conflict);
      }
      await w.life.release(w.asBob, id, view.working!.body_hash);
      base = view.working!.body_hash;
    }
    const metas = await w.life.versions(w.workspaceId, id);
    ok(metas.every((m) => m.status === "RELEASED"));
    deepEqual(metas.map((m) => m.version), metas.map((_, i) => i + 1));
  }
});

/** Two connections to one fresh, migrated PostgreSQL store, disposed after `fn`. */
async function onTwoConnections(fn: (a: Db, b: Db) => Promise<void>): Promise<void> {
  const store = await freshStore("postgres");
  try {
    const a = await store.open();
    await migrate(a);
    await fn(a, await store.open());
  } finally {
    await store.dispose();
  }
}

Deno.test("[postgres] two connections racing one entity, many rounds: exactly one wins", {
  ignore: skipUnless("postgres"),
}, () =>
  onTwoConnections(async (a, b) => {
    for (const w of await worlds(a)) {
      const { id, name } = await releasedOne(w);
      const lives = [a, b].map((db) =>
        new VersionLifecycle({ db, kind: w.k, authoringEnabled: true })
      );
      await raceRounds(w, lives, id, name);
    }
  }));

Deno.test("[postgres] the conditional UPDATE alone lets one of two racing transactions through", {
  ignore: skipUnless("postgres"),
}, async () => {
  // No entity lock here: both transactions reach the UPDATE; the second blocks on the row, then
  // re-evaluates `body_hash = $expected` against the committed row and changes nothing.
  await onTwoConnections(async (a, b) => {
    const [w] = await worlds(a);
    const { id, name, hash } = await releasedOne(w);
    let expected = (await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "d") }))
      .version.body_hash;
    for (let round = 0; round < ROUNDS; round++) {
      const write = (db: Db, marker: string) =>
        db.transaction(async (tx) => {
          const body = bodyOf(w.k, name, `${round}-${marker}`);
          const canonical = JSON.stringify(body);
          const n = await repo.overwriteDraft(tx, w.k, id, expected, {
            canonical,
            body_hash: `sha256:${round}-${marker}`,
            actor: w.alice.userId,
            now: new Date().toISOString(),
          });
          // Hold the row briefly so the other transaction really waits on it.
          await tx.execute("SELECT pg_sleep(0.01)");
          return n;
        });
      const counts = await Promise.all([write(a, "a"), write(b, "b")]);
      equal(counts[0] + counts[1], 1, `round ${round}: ${counts}`);
      expected = (await repo.listMeta(a, w.k, id)).find((m) => m.status === "DRAFT")!.body_hash;
      equal(expected, `sha256:${round}-${counts[0] === 1 ? "a" : "b"}`);
    }
  });
});

/** A save worker in its own process over the same SQLite file (testdata/sqlite_race_worker.ts). */
class Worker {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncGenerator<string>;

  constructor(args: Record<string, string>) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        new URL("./testdata/sqlite_race_worker.ts", import.meta.url).pathname,
        JSON.stringify(args),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = (async function* (readable: ReadableStream<Uint8Array<ArrayBuffer>>) {
      let buffered = "";
      for await (const chunk of readable.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        let at: number;
        while ((at = buffered.indexOf("\n")) >= 0) {
          yield buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
        }
      }
    })(this.#child.stdout);
  }

  async next(): Promise<Record<string, unknown>> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error("the worker exited early");
    return JSON.parse(value);
  }

  async send(message: unknown): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  async close(): Promise<void> {
    await this.#writer.close();
    equal((await this.#child.status).code, 0);
  }
}

Deno.test("[sqlite] two processes racing one entity in one file, many rounds: exactly one wins", async () => {
  const store = await freshStore("sqlite");
  try {
    const db = await store.open();
    await migrate(db);
    for (const w of await worlds(db)) {
      const { id, name } = await releasedOne(w);
      const users = [w.alice, w.bob];
      const workers = users.map((u) =>
        new Worker({
          url: store.url,
          kind: w.k.kind,
          workspace_id: w.workspaceId,
          entity_id: id,
          user_id: u.userId,
        })
      );
      try {
        for (const worker of workers) deepEqual(await worker.next(), { ready: true });
        for (let round = 0; round < ROUNDS; round++) {
          const hash = await workingHash(w, id);
          await Promise.all(
            workers.map((worker, i) =>
              worker.send({ if_match: hash, body: bodyOf(w.k, name, `r${round}-p${i}`) })
            ),
          );
          const answers = await Promise.all(workers.map((worker) => worker.next()));
          const winners = answers.filter((a) => a.ok);
          equal(winners.length, 1, `round ${round}: ${JSON.stringify(answers)}`);
          const loser = answers.find((a) => !a.ok)!;
          equal(loser.code, w.k.codes.conflict);
          equal(loser.current_hash, winners[0].hash);
          equal(await workingHash(w, id), winners[0].hash);
          if (round % 2 === 1) await w.life.release(w.asAlice, id, winners[0].hash as string);
        }
      } finally {
        await Promise.all(workers.map((worker) => worker.close()));
      }
      const metas = await w.life.versions(w.workspaceId, id);
      deepEqual(metas.map((m) => m.version), metas.map((_, i) => i + 1));
    }
  } finally {
    await store.dispose();
  }
});
