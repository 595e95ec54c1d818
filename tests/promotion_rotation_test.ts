/**
 * Rotating the promotion server key without a restart (spec 3 §4.4: mint a second key, set it on
 * the sender, revoke the first), on both stores. The sender reads
 * `service.deployment.promotion.target-key-file` at every promotion, so the documented setting is
 * the whole re-configuration; a promotion that read the old key just before the revocation is
 * retried once with the new one, so none is lost.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { keyFingerprint, PromotionSender } from "../src/promotion/mod.ts";
import type { Json } from "./support/harness.ts";
import {
  deployment,
  HARDENED,
  mintServerKey,
  release,
  template,
} from "./support/promotion_client.ts";
import { forEachStoreKind } from "./support/stores.ts";

forEachStoreKind("promotion key rotation: no restart, no promotion lost", async (kind) => {
  const dir = await Deno.makeTempDir({ prefix: "svc_rotate_" });
  const keyFile = `${dir}/target.key`;
  const prod = await deployment(kind, HARDENED);
  const k1 = await mintServerKey(prod, "first");
  await Deno.writeTextFile(keyFile, k1.key);
  const dev = await deployment(kind, {
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: prod.s.url,
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY_FILE: keyFile,
    // A configured key is beaten by the file.
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: "svck_aaaaaaaaaaaa.not-this-one",
  });
  try {
    await template(dev, "lib/orders", "SELECT id FROM orders");
    const body = (n: number) => ({
      name: "shop/orders",
      description: `release ${n}`,
      nodes: [{ id: "o", type: "DQL", source: "wh", template: { id: "lib/orders", version: 1 } }],
    });
    const p = await release(dev, body(1));
    // Each promotion carries a newer release: production refuses one it already has.
    let n = 1;
    const newer = async () => (await release(dev, body(++n), p.id)).version;
    const promote = () =>
      dev.req("POST", "/api/v1/promotion/promote", dev.promoter, { pipeline_id: p.id });
    equal((await promote()).status, 200);

    // The documented order, through the running sender: mint, set, revoke.
    const k2 = await mintServerKey(prod, "second");
    await Deno.writeTextFile(keyFile, k2.key);
    await newer();
    equal((await promote()).status, 200);
    equal((await prod.req("DELETE", `/api/v1/auth/api-keys/${k1.id}`, prod.admin)).status, 204);
    await newer();
    equal((await promote()).status, 200);

    // The race: the sender has read k2 when the operator rotates to k3 and revokes k2, before the
    // sender's first request leaves. The 401 makes it read the file again and retry.
    let rotate: (() => Promise<void>) | undefined;
    const k3Box: { key?: string } = {};
    const sender = new PromotionSender({
      db: dev.s.runtime.db,
      pipelines: dev.s.runtime.pipelines,
      templates: dev.s.runtime.templates,
      deploymentName: "development",
      target: { url: prod.s.url, keyFile },
      fetch: async (input, init) => {
        const step = rotate;
        rotate = undefined;
        await step?.();
        return await fetch(input, init);
      },
    });
    rotate = async () => {
      const k3 = await mintServerKey(prod, "third");
      k3Box.key = k3.key;
      await Deno.writeTextFile(keyFile, k3.key);
      equal((await prod.req("DELETE", `/api/v1/auth/api-keys/${k2.id}`, prod.admin)).status, 204);
    };
    const last = await newer();
    const raced = await sender.promote(
      {
        actor: dev.f.users.promoter.principal,
        workspaceId: dev.f.workspace.id,
        workspaceName: "acme",
      },
      p.id,
    );
    equal(raced.pipeline.version, last);
    ok(k3Box.key, "the rotation ran inside the promotion");

    const audit = async (event: string): Promise<Json[]> =>
      (await prod.s.runtime.db.query<{ details: string }>(
        "SELECT details FROM audit_log WHERE event = $1 ORDER BY timestamp",
        [event],
      )).map((r) => typeof r.details === "string" ? JSON.parse(r.details) : r.details);
    const accepted = (await audit("auth.promotion.accepted")).map((d) => d.key_fingerprint);
    deepEqual(accepted, [
      keyFingerprint(k1.key),
      keyFingerprint(k2.key),
      keyFingerprint(k2.key),
      keyFingerprint(k3Box.key!),
    ]);
    // The refused attempt with the revoked key is on record, by fingerprint only.
    const rejected = await audit("auth.promotion.rejected");
    deepEqual(rejected.map((d) => [d.reason, d.key_fingerprint]), [
      ["unknown", keyFingerprint(k2.key)],
    ]);
  } finally {
    await dev.s.close();
    await prod.s.close();
    await Deno.remove(dir, { recursive: true });
  }
});
