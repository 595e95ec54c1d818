/**
 * Session tokens (docs/access.md#sessions): HS256 JWTs signed with SERVICE_JWT_SECRET. Only HS256
 * is accepted, so `alg: none` and asymmetric-algorithm confusion tokens fail verification like any
 * forgery. A verified token is remembered (by its digest, until it expires or for a minute) so a
 * busy browser does not pay an HMAC on every request; only successes are remembered.
 */
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../errors/mod.ts";
import { sha256HexSync } from "../lib/hashing.ts";

const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

export const SESSION_ISSUER = "pipeline-service";

export interface SessionClaims {
  sub: string;
  email: string;
  name: string;
  /** Present only when login resolved a workspace. */
  active_workspace?: string;
  amr: "pwd" | "oidc";
  iat: number;
  exp: number;
}

export class SessionTokens {
  readonly #key: Uint8Array;
  readonly #verified = new Map<string, { claims: SessionClaims; until: number }>();
  readonly ttlSeconds: number;
  readonly #now: () => number;

  /** `now` is the clock expiry is judged by (tests move it instead of waiting). */
  constructor(secret: Uint8Array, ttlHours: number, now: () => number = Date.now) {
    this.#key = secret;
    this.ttlSeconds = ttlHours * 3600;
    this.#now = now;
  }

  /** Mints a token for a user; `activeWorkspace` is omitted when none resolved. */
  async issue(
    user: { id: string; email: string; displayName: string },
    amr: "pwd" | "oidc",
    activeWorkspace?: string,
  ) {
    const payload: Record<string, unknown> = {
      email: user.email,
      name: user.displayName,
      amr: [amr],
    };
    if (activeWorkspace) payload.active_workspace = activeWorkspace;
    return await new SignJWT(payload)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(user.id)
      .setIssuer(SESSION_ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.#key);
  }

  /** Verifies signature, algorithm, issuer and expiry; throws auth.session.expired / invalid. */
  async verify(token: string): Promise<SessionClaims> {
    const digest = sha256HexSync(token);
    const now = this.#now();
    const hit = this.#verified.get(digest);
    if (hit && hit.until > now) return hit.claims;
    if (hit) this.#verified.delete(digest);
    const claims = await this.#verify(token);
    if (this.#verified.size >= VERIFIED_MAX) {
      this.#verified.delete(this.#verified.keys().next().value!);
    }
    this.#verified.set(digest, {
      claims,
      until: Math.min(claims.exp * 1000, now + VERIFIED_TTL_MS),
    });
    return claims;
  }

  async #verify(token: string): Promise<SessionClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ["HS256"],
        issuer: SESSION_ISSUER,
        currentDate: new Date(this.#now()),
      });
      if (typeof payload.sub !== "string" || typeof payload.email !== "string") {
        throw new AppError("auth.session.invalid", {});
      }
      // RFC 8176 amr is an array; a token without it predates the claim and counts as `pwd`.
      const amr = Array.isArray(payload.amr) && payload.amr.includes("oidc") ? "oidc" : "pwd";
      return {
        sub: payload.sub,
        email: payload.email,
        name: typeof payload.name === "string" ? payload.name : payload.email,
        active_workspace: typeof payload.active_workspace === "string"
          ? payload.active_workspace
          : undefined,
        amr,
        iat: payload.iat ?? 0,
        exp: payload.exp ?? 0,
      };
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (e instanceof joseErrors.JWTExpired) throw new AppError("auth.session.expired", {});
      throw new AppError("auth.session.invalid", {});
    }
  }
}
