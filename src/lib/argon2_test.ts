import { equal, match } from "node:assert/strict";
import { hashSecret, verifySecret } from "./argon2.ts";

Deno.test("hashSecret() produces an OWASP-parameter Argon2id hash that verifySecret() accepts", async () => {
  const hash = await hashSecret("correct horse battery staple");
  match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  equal(await verifySecret("correct horse battery staple", hash), true);
  equal(await verifySecret("wrong", hash), false);
  equal(await verifySecret("x", "not-a-hash"), false);
});
