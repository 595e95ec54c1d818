/** Key validation (spec 1 §5.6 steps 1–6), the cache, last-used coalescing, sampled audit. */
import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { toIso } from "../lib/time.ts";
import type { Db } from "../store/mod.ts";
import {
  AUTHOR,
  countingDb,
  harness,
  seedUser,
  seedWorkspace,
  sessionIssuer,
} from "./api_keys_test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";
import { eventually } from "../../tests/support/wait.ts";

async function setup(db: Db, extra: Record<string, unknown> = {}, harnessOpts = {}) {
  const h = harness(db, harnessOpts);
  const ws = await seedWorkspace(db, "acme");
  const uid = await seedUser(db, "owner@example.com");
  const issued = await h.svc.issue(sessionIssuer(uid, ws), { name: "ci", ...extra }, AUTHOR);
  return { ...h, ws, uid, issued };
}

const rejections = async (db: Db) =>
  (await audits(db, "auth.api_key.rejected")).map((r) => r.details);

forEachStore(
  "step 1: malformed keys, unknown ids and revoked keys are auth.api_key.invalid",
  async (db) => {
    const { svc, issued, verifyCalls } = await setup(db);
    const [, id, secret] = /^svck_(.{12})\.(.{48})$/.exec(issued.key)!;
    const malformed = [
      "",
      `sk_${id}.${secret}`,
      `SVCK_${id}.${secret}`,
      `svck_${id.toUpperCase()}.${secret}`,
      `svck_${id}.${secret.toUpperCase()}`,
      `svck_${id.slice(1)}.${secret}`,
      `svck_${id}.${secret}a`,
      `svck_${id}.${secret.slice(1)}0`,
      `svck_${id}.${secret.slice(1)}1`,
      `svck_${id}.${secret}.x`,
      `svck_${id}${secret}`,
      ` ${issued.key}`,
      `${issued.key}\n`,
      undefined,
    ];
    for (const key of malformed) {
      await refuses(() => svc.validate(key, {}), "auth.api_key.invalid");
    }
    const unknown = `svck_aaaaaaaaaaaa.${secret}`;
    await refuses(() => svc.validate(unknown), "auth.api_key.invalid");
    await db.execute("UPDATE api_keys SET is_revoked = $1", [true]);
    await refuses(() => svc.validate(issued.key), "auth.api_key.invalid");
    equal(verifyCalls.n, 0, "no Argon2id for a key that cannot exist");
    // Rows of one millisecond have no order: compare sorted.
    const sorted = (list: unknown[]) => list.map((d) => JSON.stringify(d)).sort();
    deepEqual(
      sorted(await rejections(db)),
      sorted([
        ...malformed.map(() => ({ reason: "malformed" })),
        { key_id: "svck_aaaaaaaaaaaa", reason: "not_found" },
        { key_id: issued.id, reason: "not_found" },
      ]),
    );
    await svc.close();
  },
);

forEachStore("step 2: an expired key is auth.api_key.expired, before any hashing", async (db) => {
  const { svc, issued, clock, verifyCalls } = await setup(db, { expires_in: "7d" });
  clock.t += 8 * 86_400_000;
  await refuses(() => svc.validate(issued.key), "auth.api_key.expired", {
    expires_at: "2030-01-08T00:00:00.000Z",
  });
  equal(verifyCalls.n, 0);
  const [rejected] = await rejections(db);
  deepEqual(rejected, { key_id: issued.id, reason: "expired" });
  await svc.close();
});

forEachStore(
  "step 2 on a cached key: expiry is checked against the clock every call",
  async (db) => {
    const { svc, issued, clock, verifyCalls } = await setup(db, {
      expires_at: "2030-01-01T00:00:30Z",
    });
    await svc.validate(issued.key);
    clock.t += 29_000;
    await svc.validate(issued.key);
    equal(verifyCalls.n, 1);
    clock.t += 1_000; // still inside the 60 s cache TTL, but past expires_at
    await refuses(() => svc.validate(issued.key), "auth.api_key.expired");
    equal(verifyCalls.n, 1);
    await svc.close();
  },
);

forEachStore("step 3: a wrong secret for a real id is invalid (hash mismatch)", async (db) => {
  const { svc, issued, verifyCalls } = await setup(db);
  const forged = `${issued.id}.${"a".repeat(48)}`;
  await refuses(() => svc.validate(forged), "auth.api_key.invalid");
  equal(verifyCalls.n, 1);
  // With the real key cached, a forged secret still pays (and fails) Argon2id.
  await svc.validate(issued.key);
  await refuses(() => svc.validate(forged), "auth.api_key.invalid");
  await svc.validate(issued.key);
  equal(verifyCalls.n, 3);
  deepEqual(await rejections(db), [
    { key_id: issued.id, reason: "hash_mismatch" },
    { key_id: issued.id, reason: "hash_mismatch" },
  ]);
  await svc.close();
});

forEachStore(
  "step 4: an inactive owner is invalid; deactivation drops the cache via invalidateUser",
  async (db) => {
    const { svc, issued, uid } = await setup(db);
    await svc.validate(issued.key);
    await db.execute("UPDATE users SET is_active = $1 WHERE id = $2", [false, uid]);
    await svc.validate(issued.key); // cached liveness: other instances converge within the TTL
    svc.invalidateUser(uid);
    await refuses(() => svc.validate(issued.key), "auth.api_key.invalid");
    deepEqual((await rejections(db)).at(-1), { key_id: issued.id, reason: "owner_inactive" });
    await svc.close();
  },
);

forEachStore(
  "step 5: the result carries expanded scopes, owner and pin; admin is capped",
  async (db) => {
    const { svc, issued, uid, ws } = await setup(db, { scopes: ["execute"] });
    const key = await svc.validate(issued.key, { ip: "198.51.100.7" });
    deepEqual(key, {
      keyId: issued.id,
      kind: "user",
      scopes: ["read", "execute"],
      bindings: [],
      userId: uid,
      pinnedWorkspaceId: ws,
      name: "ci",
      email: "owner@example.com",
      display_name: "Name of owner@example.com",
      provider: "corp",
      is_admin: false,
    });
    key.scopes.push("author"); // the caller's copy; the cache is unaffected
    deepEqual((await svc.validate(issued.key)).scopes, ["read", "execute"]);
    await db.execute("UPDATE api_keys SET scopes = $1", ['["admin"]']);
    svc.invalidate(issued.id);
    deepEqual((await svc.validate(issued.key)).scopes, ["read", "execute", "author"]);
    await svc.close();
  },
);

forEachStore(
  "step 6: a cached valid key does not pay Argon2id again until the TTL ends",
  async (db) => {
    const { svc, issued, clock, verifyCalls } = await setup(db);
    for (let i = 0; i < 5; i++) await svc.validate(issued.key);
    equal(verifyCalls.n, 1);
    clock.t += 59_000;
    await svc.validate(issued.key);
    equal(verifyCalls.n, 1);
    clock.t += 2_000;
    await svc.validate(issued.key);
    equal(verifyCalls.n, 2, "TTL over: verified again");
    svc.invalidate(issued.id);
    await svc.validate(issued.key);
    equal(verifyCalls.n, 3);
    await svc.close();
  },
);

forEachStore("step 6: concurrent first validations share one Argon2id run", async (db) => {
  const { svc, issued, verifyCalls } = await setup(db);
  const results = await Promise.all(Array.from({ length: 5 }, () => svc.validate(issued.key)));
  ok(results.every((r) => r.keyId === issued.id));
  equal(verifyCalls.n, 1);
  await svc.close();
});

forEachStore("revocation is effective at once even while the key is cached", async (db) => {
  const { svc, issued, verifyCalls } = await setup(db);
  const owner = { ...sessionIssuer((await svc.validate(issued.key)).userId, "") };
  await svc.validate(issued.key);
  equal(verifyCalls.n, 1);
  await svc.revoke(owner, issued.id, () => Promise.resolve(false));
  await refuses(() => svc.validate(issued.key), "auth.api_key.invalid");
  equal(verifyCalls.n, 1);
  await svc.close();
});

forEachStore(
  "last used: many validations coalesce into one UPDATE with the latest ip",
  async (db) => {
    const counted = countingDb(db);
    const { svc, issued, clock } = await setup(counted.db);
    const updates = () => counted.statements.filter((s) => s.includes("last_used_at =")).length;
    for (let i = 1; i <= 10; i++) {
      clock.t += 100;
      await svc.validate(issued.key, { ip: `192.0.2.${i}` });
    }
    equal(updates(), 0, "nothing written on the request path");
    await svc.flush();
    equal(updates(), 1);
    const row = await db.first<{ last_used_at: unknown; last_used_ip: string }>(
      "SELECT last_used_at, last_used_ip FROM api_keys",
    );
    equal(row!.last_used_ip, "192.0.2.10");
    equal(toIso(row!.last_used_at), new Date(clock.t).toISOString());
    await svc.flush();
    equal(updates(), 1, "an empty flush writes nothing");
    await svc.close();
  },
);

forEachStore("last used: the timer writes on its own; a failed write is a warning", async (db) => {
  const { svc, issued } = await setup(db, {}, { lastUsedFlushMs: 10 });
  await svc.validate(issued.key, { ip: "192.0.2.1" });
  // No flush() here: only the timer can write it.
  await eventually(
    async () =>
      (await db.first<{ last_used_ip: string }>("SELECT last_used_ip FROM api_keys"))
        ?.last_used_ip === "192.0.2.1",
    { what: "the timer's write" },
  );
  await svc.close();

  // A store that refuses the write: the request still succeeds; flush logs and resolves.
  const h = harness(countingDb(db, /last_used_at =/).db);
  equal((await h.svc.validate(issued.key, { ip: "192.0.2.2" })).keyId, issued.id);
  await h.svc.close();
  const warn = h.logs.map((l) => JSON.parse(l)).find((l) => l.level === "warn");
  equal(warn?.key_id, issued.id);
});

forEachStore(
  "audit: used is sampled through the injected sampler; no secret in any row",
  async (db) => {
    let calls = 0;
    const { svc, issued, uid, ws } = await setup(db, {}, { sampleUsed: () => ++calls % 3 === 0 });
    for (let i = 0; i < 9; i++) await svc.validate(issued.key);
    const used = await audits(db, "auth.api_key.used");
    equal(used.length, 3);
    deepEqual([used[0].user_id, used[0].workspace_id, used[0].details.key_id], [
      uid,
      ws,
      issued.id,
    ]);
    await refuses(() => svc.validate(`${issued.id}.${"b".repeat(48)}`), "auth.api_key.invalid");
    const all = JSON.stringify(await audits(db));
    const { key_hash } = (await db.first<{ key_hash: string }>("SELECT key_hash FROM api_keys"))!;
    ok(!all.includes(issued.key.split(".")[1]) && !all.includes("b".repeat(48)));
    ok(!all.includes(key_hash));
    await svc.close();
  },
);
