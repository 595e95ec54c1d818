/**
 * The matcher and binding index of a second replica follow changes made on the first through the
 * shared store's channel: on the in-process store and on Redis (each replica its own connection),
 * over a real metadata store of each kind.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { REDIS_URL, skipUnless } from "../../tests/support/services.ts";
import { freshStore, type StoreKind } from "../../tests/support/stores.ts";
import { sqliteSource } from "../executions/executor_fixtures.ts";
import { MemoryStore, RedisStore, type SharedStore } from "../shared/mod.ts";
import { migrate } from "../store/mod.ts";
import { LiveEndpoints } from "./live.ts";
import { splitRequestPath } from "./path.ts";
import { endpointWorld, PEOPLE_BY_TEAM, peopleNodes } from "./test_fixtures.ts";

async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: nothing heard within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const SHARED = [
  {
    name: "memory",
    ignore: false,
    // One in-process store stands for the shared one; both replicas hold it.
    pair: () => {
      const s = new MemoryStore();
      return Promise.resolve([s, s] as const);
    },
  },
  {
    name: "redis",
    ignore: skipUnless("redis"),
    pair: async () => [await RedisStore.connect(REDIS_URL), await RedisStore.connect(REDIS_URL)],
  },
] as const;

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  for (const shared of SHARED) {
    Deno.test({
      name: `[${kind}+${shared.name}] a second replica follows publishes, toggles and bindings`,
      ignore: shared.ignore || (kind === "postgres" && skipUnless("postgres")),
      async fn() {
        const store = await freshStore(kind);
        const [sa, sb] = await shared.pair();
        try {
          const db = await store.open();
          await migrate(db);
          const a = await endpointWorld(db, { shared: sa as SharedStore });
          const b = new LiveEndpoints({ db: await store.open(), shared: sb as SharedStore });
          await b.open();
          try {
            sqliteSource(a.w, "lite");
            const match = async (path: string) =>
              (await b.snapshot()).matcher.match(splitRequestPath(path)!);
            equal(await match("/people/red"), null);

            const id = await a.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
            let heard = b.nextAnnouncement();
            await a.service.publish(a.ctx, { path_pattern: "/people/{team}", pipeline_id: id });
            await within(heard, "publish");
            deepEqual((await match("/people/red"))?.params, { team: "red" });

            heard = b.nextAnnouncement();
            await a.service.setEnabled(a.ctx, "/people/{team}", { enabled: false });
            await within(heard, "disable");
            equal(await match("/people/red"), null);

            heard = b.nextAnnouncement();
            const key = await a.key({ name: "feed", kind: "endpoint", bindings: [{ path: "/" }] });
            await within(heard, "an endpoint key issued with bindings");
            const root = (await b.snapshot()).bindings.get(a.ctx.workspaceId)?.get("/");
            deepEqual(root?.map((k) => "svck_" + k.keyId), [key.keyId]);

            heard = b.nextAnnouncement();
            await a.service.bind(a.ctx, { path: "/people", key_name: "feed" });
            await within(heard, "bind");
            ok((await b.snapshot()).bindings.get(a.ctx.workspaceId)?.get("/people"));

            heard = b.nextAnnouncement();
            await a.keys.revoke(a.ctx.actor, key.keyId!, () => Promise.resolve(false));
            await within(heard, "revoke");
            equal((await b.snapshot()).bindings.get(a.ctx.workspaceId), undefined);

            heard = b.nextAnnouncement();
            await a.service.unpublish(a.ctx, "/people/{team}");
            await within(heard, "unpublish");
            equal((await b.snapshot()).matcher.size, 0);
          } finally {
            await b.close();
            await a.close();
          }
        } finally {
          await sa.close();
          if (sb !== sa) await sb.close();
          await store.dispose();
        }
      },
    });
  }
}

Deno.test("snapshot() rebuilds once per burst of changes, and once past maxAgeMs", async () => {
  const store = await freshStore("sqlite");
  const shared = new MemoryStore();
  try {
    const db = await store.open();
    await migrate(db);
    let reads = 0;
    const counted = {
      ...db,
      dialect: db.dialect,
      query: <T>(sql: string, params?: unknown[]) => {
        if (/FROM endpoints e/.test(sql)) reads++;
        return db.query<T>(sql, params as never);
      },
      first: db.first.bind(db),
      execute: db.execute.bind(db),
    };
    const clock = { t: 0 };
    const live = new LiveEndpoints({ db: counted, shared, maxAgeMs: 1000, now: () => clock.t });
    await live.open();
    await live.snapshot();
    await live.snapshot();
    equal(reads, 1);
    await Promise.all([live.changed(), live.changed(), live.changed()]);
    await Promise.all([live.snapshot(), live.snapshot()]);
    equal(reads, 2);
    // Without any message, a state older than maxAgeMs is rebuilt (a lost message's bound).
    clock.t = 999;
    await live.snapshot();
    equal(reads, 2);
    clock.t = 1000;
    await live.snapshot();
    await live.snapshot();
    equal(reads, 3);
    await live.close();
  } finally {
    await shared.close();
    await store.dispose();
  }
});
