/**
 * The `svc_oauth2_authz` value: state, nonce and PKCE verifier of one authorization request,
 * carried by the browser between the redirect and the callback. It is an HS256 JWT under a key
 * derived from the session secret for this purpose only, so a session token can never pass as an
 * authorization state or the reverse. Short-lived: a login left open longer starts again.
 */
import { jwtVerify, SignJWT } from "jose";
import type { AuthorizationState } from "./oidc_client.ts";

export const AUTHZ_TTL_SECONDS = 600;
const AUDIENCE = "svc_oauth2_authz";

export class AuthorizationStateSealer {
  readonly #key: Promise<Uint8Array>;

  constructor(sessionSecret: Uint8Array) {
    this.#key = (async () => {
      const hmac = await crypto.subtle.importKey(
        "raw",
        sessionSecret as BufferSource,
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const derived = await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(AUDIENCE));
      return new Uint8Array(derived);
    })();
  }

  async seal(state: AuthorizationState): Promise<string> {
    return await new SignJWT({
      p: state.provider,
      s: state.state,
      n: state.nonce,
      v: state.verifier,
    })
      .setProtectedHeader({ alg: "HS256" })
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${AUTHZ_TTL_SECONDS}s`)
      .sign(await this.#key);
  }

  /** The kept state, or undefined when absent, forged, expired or malformed. */
  async open(value: string | undefined): Promise<AuthorizationState | undefined> {
    if (!value || value.length > 4096) return undefined;
    try {
      const { payload } = await jwtVerify(value, await this.#key, {
        algorithms: ["HS256"],
        audience: AUDIENCE,
      });
      const { p, s, n, v } = payload;
      if (
        typeof p !== "string" || typeof s !== "string" || typeof n !== "string" ||
        typeof v !== "string"
      ) return undefined;
      return { provider: p, state: s, nonce: n, verifier: v };
    } catch {
      return undefined;
    }
  }
}
