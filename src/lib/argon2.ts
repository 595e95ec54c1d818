/**
 * Argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane): the one hasher for
 * passwords and API keys. WASM, so it works inside a compiled binary. Loaded on the first hash,
 * not at startup: most starts hash nothing before their first sign-in or key.
 */
let hasher: Promise<typeof import("hash-wasm")> | undefined;
const wasm = () => hasher ??= import("hash-wasm");

export const ARGON2_PARAMS = {
  memorySize: 19456,
  iterations: 2,
  parallelism: 1,
  hashLength: 32,
} as const;

/** Encoded hash (`$argon2id$v=19$m=19456,t=2,p=1$…`) of a secret with a fresh random salt. */
export async function hashSecret(secret: string): Promise<string> {
  const { argon2id } = await wasm();
  return await argon2id({
    password: secret,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    ...ARGON2_PARAMS,
    outputType: "encoded",
  });
}

/** True when `secret` matches the encoded hash; false for a malformed hash. */
export async function verifySecret(secret: string, encoded: string): Promise<boolean> {
  const { argon2Verify } = await wasm();
  try {
    return await argon2Verify({ password: secret, hash: encoded });
  } catch {
    return false;
  }
}
