/**
 * Datasource secrets at rest: AES-256-GCM (WebCrypto) under `SERVICE_ENCRYPTION_KEY`. Every seal
 * draws a fresh 96-bit IV. The additional authenticated data names the key version and the
 * datasource, so a ciphertext copied onto another row (or read under another key version) fails
 * authentication instead of decrypting: names are immutable, so the binding never needs rewriting.
 *
 * Sealed form: `v<version>.<base64 iv>.<base64 ciphertext+tag>`. The version leaves room for key
 * rotation: a future key gets the next number and old rows stay readable until re-sealed.
 */

const KEY_VERSION = 1;
const IV_BYTES = 12;

function b64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function aad(version: number, datasource: string): Uint8Array {
  return new TextEncoder().encode(`svc.datasource.secret:v${version}:${datasource}`);
}

/** Raised when a stored secret cannot be opened; carries no secret material. */
export class SealedSecretError extends Error {
  constructor(datasource: string, reason: string) {
    super(`the stored secret of datasource ${datasource} cannot be opened: ${reason}`);
    this.name = "SealedSecretError";
  }
}

/** Seals and opens datasource secrets under the process's encryption key. */
export class CredentialCipher {
  readonly #key: CryptoKey;

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** Imports the 32-byte key (non-extractable). */
  static async create(keyBytes: Uint8Array): Promise<CredentialCipher> {
    if (keyBytes.length !== 32) {
      throw new Error("the datasource encryption key must be exactly 32 bytes");
    }
    const key = await crypto.subtle.importKey(
      "raw",
      keyBytes as Uint8Array<ArrayBuffer>,
      { name: "AES-GCM" },
      false,
      ["encrypt", "decrypt"],
    );
    return new CredentialCipher(key);
  }

  /** The key version new seals are made under (recorded beside each row). */
  get keyVersion(): number {
    return KEY_VERSION;
  }

  /** Encrypts `secret` for the datasource `name`. */
  async seal(name: string, secret: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: aad(KEY_VERSION, name) as Uint8Array<ArrayBuffer> },
      this.#key,
      new TextEncoder().encode(secret),
    );
    return `v${KEY_VERSION}.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
  }

  /** Decrypts a sealed secret of the datasource `name`; throws SealedSecretError otherwise. */
  async open(name: string, sealed: string): Promise<string> {
    const m = /^v(\d+)\.([A-Za-z0-9+/=]+)\.([A-Za-z0-9+/=]+)$/.exec(sealed);
    if (!m) throw new SealedSecretError(name, "not in the sealed form");
    const version = Number(m[1]);
    if (version !== KEY_VERSION) {
      throw new SealedSecretError(name, `unknown key version ${version}`);
    }
    try {
      const plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: unb64(m[2]) as Uint8Array<ArrayBuffer>,
          additionalData: aad(version, name) as Uint8Array<ArrayBuffer>,
        },
        this.#key,
        unb64(m[3]) as Uint8Array<ArrayBuffer>,
      );
      return new TextDecoder().decode(plain);
    } catch {
      throw new SealedSecretError(name, "authentication failed (wrong key, row or tampering)");
    }
  }
}
