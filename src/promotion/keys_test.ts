import { deepEqual, equal, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { AppError } from "../errors/mod.ts";
import {
  harness,
  seedUser,
  seedWorkspace,
  sessionIssuer,
  SUPER,
  WS_ADMIN,
} from "../identity/api_keys_test_fixtures.ts";
import { sha256HexSync } from "../lib/hashing.ts";
import { keyFingerprint, PromotionKeys } from "./keys.ts";

const invalid = (e: unknown) =>
  e instanceof AppError && e.code === "auth.promotion.key_invalid" &&
  JSON.stringify(e.details) === "{}" && e.status === 401;

forEachStore("the gate's decision: configured value first, then a live server key", async (db) => {
  const { svc } = harness(db);
  const ws = await seedWorkspace(db);
  const admin = await seedUser(db, "admin@x.example", { admin: true });
  const server = await svc.issue(
    sessionIssuer(admin, ws, true),
    { name: "s", kind: "server" },
    SUPER,
  );
  const user = await svc.issue(
    sessionIssuer(admin, ws, true),
    { name: "u", scopes: ["read"] },
    WS_ADMIN,
  );
  const legacy = "pre-shared value of the older release";
  const gate = new PromotionKeys({ db, keys: svc, configured: legacy });
  const at = { path: "/api/v1/promotion/push" };

  deepEqual(await gate.authenticate(legacy, at), {
    keyId: null,
    fingerprint: keyFingerprint(legacy),
    via: "configured",
  });
  const viaStore = await gate.authenticate(server.key, at);
  deepEqual([viaStore.keyId, viaStore.via, viaStore.pinnedWorkspaceId], [
    server.id,
    "key_store",
    ws,
  ]);
  equal(viaStore.fingerprint, `sha256:${sha256HexSync(server.key).slice(0, 16)}`);

  // The stored key with its last character changed (to another one: "a" ends one key in 32).
  const altered = server.key.slice(0, -1) + (server.key.endsWith("a") ? "b" : "a");
  for (const presented of [undefined, "", "x", legacy + " ", user.key, altered]) {
    await rejects(gate.authenticate(presented, at), invalid, String(presented));
  }
  const rows = await db.query<{ details: string }>(
    "SELECT details FROM audit_log WHERE event = 'auth.promotion.rejected' ORDER BY timestamp",
  );
  deepEqual(
    rows.map((r) => (typeof r.details === "string" ? JSON.parse(r.details) : r.details).reason),
    ["missing", "missing", "malformed", "malformed", "wrong_kind", "unknown"],
  );
  // Nothing configured and the key revoked: nothing opens the gate.
  const closed = new PromotionKeys({ db, keys: svc });
  await rejects(closed.authenticate(legacy, at), invalid);
  await svc.revoke(sessionIssuer(admin, ws, true), server.id, () => Promise.resolve(true));
  await rejects(closed.authenticate(server.key, at), invalid);
});
