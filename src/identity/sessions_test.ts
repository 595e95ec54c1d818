import { equal, rejects } from "node:assert/strict";
import { SignJWT, UnsecuredJWT } from "jose";
import { AppError } from "../errors/mod.ts";
import { SESSION_ISSUER, SessionTokens } from "./sessions.ts";

const secret = crypto.getRandomValues(new Uint8Array(32));
const tokens = new SessionTokens(secret, 8);
const user = { id: crypto.randomUUID(), email: "a@example.com", displayName: "A" };

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

Deno.test("issue() then verify() round-trips the claims of spec 1 §2.8", async () => {
  const claims = await tokens.verify(await tokens.issue(user, "pwd", "demo"));
  equal(claims.sub, user.id);
  equal(claims.email, user.email);
  equal(claims.name, "A");
  equal(claims.active_workspace, "demo");
  equal(claims.amr, "pwd");
  equal(claims.exp - claims.iat, 8 * 3600);
  equal((await tokens.verify(await tokens.issue(user, "oidc"))).active_workspace, undefined);
});

Deno.test("an expired token answers auth.session.expired", async () => {
  const expired = await new SignJWT({ email: user.email })
    .setProtectedHeader({ alg: "HS256" }).setSubject(user.id).setIssuer(SESSION_ISSUER)
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200).setExpirationTime(
      Math.floor(Date.now() / 1000) - 60,
    )
    .sign(secret);
  await rejects(tokens.verify(expired), code("auth.session.expired"));
});

Deno.test("forged, truncated, alg:none and HS/RS confusion tokens answer auth.session.invalid", async () => {
  const good = await tokens.issue(user, "pwd");
  const other = await new SessionTokens(crypto.getRandomValues(new Uint8Array(32)), 8).issue(
    user,
    "pwd",
  );
  const none = new UnsecuredJWT({ email: user.email }).setSubject(user.id).setIssuer(SESSION_ISSUER)
    .setExpirationTime("1h").encode();
  const { privateKey } = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const rs = await new SignJWT({ email: user.email }).setProtectedHeader({ alg: "RS256" })
    .setSubject(user.id)
    .setIssuer(SESSION_ISSUER).setExpirationTime("1h").sign(privateKey);
  const [h, p] = good.split(".");
  const tamperedPayload = btoa(
    JSON.stringify({ sub: crypto.randomUUID(), email: "x@y", iss: SESSION_ISSUER, exp: 9e9 }),
  )
    .replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
  for (
    const bad of [
      other,
      good.slice(0, -5),
      `${h}.${p}`,
      none,
      rs,
      `${h}.${tamperedPayload}.${good.split(".")[2]}`,
      "",
      "garbage",
      "a.b.c",
    ]
  ) {
    await rejects(tokens.verify(bad), code("auth.session.invalid"), bad.slice(0, 40));
  }
});

Deno.test("a token from another issuer is invalid", async () => {
  const foreign = await new SignJWT({ email: user.email }).setProtectedHeader({ alg: "HS256" })
    .setSubject(user.id)
    .setIssuer("someone-else").setExpirationTime("1h").sign(secret);
  await rejects(tokens.verify(foreign), code("auth.session.invalid"));
});

Deno.test("a remembered token still expires on time", async () => {
  const shortLived = await new SignJWT({ email: user.email })
    .setProtectedHeader({ alg: "HS256" }).setSubject(user.id).setIssuer(SESSION_ISSUER)
    .setIssuedAt().setExpirationTime(Math.floor(Date.now() / 1000) + 1).sign(secret);
  let now = Date.now();
  const local = new SessionTokens(secret, 8, () => now);
  equal((await local.verify(shortLived)).sub, user.id);
  equal((await local.verify(shortLived)).sub, user.id);
  now += 2_000;
  await rejects(local.verify(shortLived), code("auth.session.expired"));
});
