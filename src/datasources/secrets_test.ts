import { equal, notEqual, ok, rejects } from "node:assert/strict";
import { CredentialCipher, SealedSecretError } from "./secrets.ts";

const key = () => crypto.getRandomValues(new Uint8Array(32));

Deno.test("seal() and open() round-trip; two seals of one secret differ (fresh IV)", async () => {
  const cipher = await CredentialCipher.create(key());
  const a = await cipher.seal("warehouse", "s3cr3t-ünï");
  const b = await cipher.seal("warehouse", "s3cr3t-ünï");
  notEqual(a, b);
  ok(a.startsWith("v1."));
  ok(!a.includes("s3cr3t"));
  equal(await cipher.open("warehouse", a), "s3cr3t-ünï");
  equal(await cipher.open("warehouse", b), "s3cr3t-ünï");
  const iv = (sealed: string) => atob(sealed.split(".")[1]).length;
  equal(iv(a), 12);
});

Deno.test("a ciphertext moved to another datasource's row does not open", async () => {
  const cipher = await CredentialCipher.create(key());
  const sealed = await cipher.seal("warehouse", "secret");
  await rejects(cipher.open("other", sealed), SealedSecretError);
});

Deno.test("tampering, another key, an unknown version or garbage never open", async () => {
  const cipher = await CredentialCipher.create(key());
  const sealed = await cipher.seal("w", "secret");
  const [v, iv, ct] = sealed.split(".");
  const flipped = atob(ct).split("");
  flipped[0] = String.fromCharCode(flipped[0].charCodeAt(0) ^ 1);
  await rejects(cipher.open("w", `${v}.${iv}.${btoa(flipped.join(""))}`), SealedSecretError);
  await rejects((await CredentialCipher.create(key())).open("w", sealed), SealedSecretError);
  await rejects(cipher.open("w", `v2.${iv}.${ct}`), /unknown key version 2/);
  await rejects(cipher.open("w", "plain text"), /not in the sealed form/);
  await rejects(CredentialCipher.create(new Uint8Array(16)), /exactly 32 bytes/);
});

Deno.test("an opening failure names the datasource but never the secret material", async () => {
  const cipher = await CredentialCipher.create(key());
  const sealed = await cipher.seal("w", "canary-secret");
  try {
    await cipher.open("x", sealed);
  } catch (e) {
    ok(!(e as Error).message.includes("canary"));
    ok(!(e as Error).message.includes(sealed.split(".")[2]));
  }
});
