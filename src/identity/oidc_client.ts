/**
 * The relying-party side of OIDC (docs/access.md#signing-in-with-an-openid-provider) over
 * oauth4webapi: discovery from the issuer, the authorization code flow with PKCE, and ID token
 * validation (signature against the provider's JWKS, issuer, audience, expiry, nonce). Nothing here
 * knows HTTP frameworks: the caller hands in the callback URL and the state it kept, and gets
 * claims or an OidcFailure.
 */
import * as oauth from "oauth4webapi";
import { hasTenantTemplate } from "../lib/issuer.ts";

export interface OidcProviderConfig {
  name: string;
  clientId: string;
  clientSecret: string;
  issuerUri: string;
  displayName?: string;
}

/** What the browser carries between the redirect and the callback (in the signed cookie). */
export interface AuthorizationState {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
}

export interface IdentityClaims {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  picture?: string;
}

/** Why a provider exchange failed; `reason` is audited, `message` is for the log only. */
export class OidcFailure extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
    this.name = "OidcFailure";
  }
}

const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const TIMEOUT_MS = 10_000;

interface Discovered {
  as: oauth.AuthorizationServer;
  at: number;
}

/** One configured provider: its discovery document (cached) and JWKS cache. */
class ProviderClient {
  readonly #config: OidcProviderConfig;
  readonly #issuer: URL;
  readonly #client: oauth.Client;
  readonly #insecure: boolean;
  readonly #jwks: oauth.JWKSCacheInput = {};
  #discovered?: Discovered;

  constructor(config: OidcProviderConfig) {
    this.#config = config;
    this.#issuer = new URL(config.issuerUri);
    this.#client = { client_id: config.clientId };
    // The operator named an http issuer explicitly (a loopback or in-cluster provider).
    this.#insecure = this.#issuer.protocol === "http:";
  }

  #options<T extends object>(extra: T = {} as T) {
    return {
      ...extra,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      [oauth.allowInsecureRequests]: this.#insecure,
    };
  }

  async metadata(): Promise<oauth.AuthorizationServer> {
    const cached = this.#discovered;
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.as;
    let response: Response;
    try {
      response = await oauth.discoveryRequest(
        this.#issuer,
        this.#options({ algorithm: "oidc" as const }),
      );
    } catch (e) {
      throw new OidcFailure("discovery_failed", `discovery request failed: ${errorText(e)}`);
    }
    const peek = await response.clone().json().catch(() => undefined);
    if (typeof peek?.issuer === "string" && hasTenantTemplate(peek.issuer)) {
      await response.body?.cancel();
      throw new OidcFailure(
        "tenant_template",
        "the issuer's metadata carries a multi-tenant template; configure the tenant's own issuer",
      );
    }
    try {
      const as = await oauth.processDiscoveryResponse(this.#issuer, response);
      this.#discovered = { as, at: Date.now() };
      return as;
    } catch (e) {
      throw new OidcFailure("discovery_failed", `discovery response refused: ${errorText(e)}`);
    }
  }

  #auth(as: oauth.AuthorizationServer): oauth.ClientAuth {
    const methods = as.token_endpoint_auth_methods_supported;
    return methods && !methods.includes("client_secret_basic") &&
        methods.includes("client_secret_post")
      ? oauth.ClientSecretPost(this.#config.clientSecret)
      : oauth.ClientSecretBasic(this.#config.clientSecret);
  }

  async authorizationUrl(redirectUri: string): Promise<{ url: URL; state: AuthorizationState }> {
    const as = await this.metadata();
    if (!as.authorization_endpoint) {
      throw new OidcFailure("discovery_failed", "the provider names no authorization endpoint");
    }
    const state: AuthorizationState = {
      provider: this.#config.name,
      state: oauth.generateRandomState(),
      nonce: oauth.generateRandomNonce(),
      verifier: oauth.generateRandomCodeVerifier(),
    };
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("client_id", this.#config.clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "openid profile email");
    url.searchParams.set("state", state.state);
    url.searchParams.set("nonce", state.nonce);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(state.verifier));
    url.searchParams.set("code_challenge_method", "S256");
    return { url, state };
  }

  async complete(
    callback: URL,
    redirectUri: string,
    kept: AuthorizationState,
  ): Promise<IdentityClaims> {
    const as = await this.metadata();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, this.#client, callback, kept.state);
    } catch (e) {
      const reason = e instanceof oauth.AuthorizationResponseError
        ? "provider_error"
        : "state_mismatch";
      throw new OidcFailure(reason, `authorization response refused: ${errorText(e)}`);
    }
    let response: Response;
    try {
      response = await oauth.authorizationCodeGrantRequest(
        as,
        this.#client,
        this.#auth(as),
        params,
        redirectUri,
        kept.verifier,
        this.#options(),
      );
    } catch (e) {
      throw new OidcFailure("token_request_failed", `token request failed: ${errorText(e)}`);
    }
    let result: oauth.TokenEndpointResponse;
    try {
      result = await oauth.processAuthorizationCodeResponse(as, this.#client, response, {
        expectedNonce: kept.nonce,
        requireIdToken: true,
      });
    } catch (e) {
      const reason = e instanceof oauth.ResponseBodyError ? "token_error" : "id_token_invalid";
      throw new OidcFailure(reason, `token response refused: ${errorText(e)}`);
    }
    try {
      await oauth.validateApplicationLevelSignature(
        as,
        response,
        this.#options({ [oauth.jwksCache]: this.#jwks }),
      );
    } catch (e) {
      throw new OidcFailure("id_token_invalid", `ID token signature refused: ${errorText(e)}`);
    }
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    const str = (v: unknown) => typeof v === "string" && v.length > 0 ? v : undefined;
    return {
      sub: claims.sub,
      email: str(claims.email),
      emailVerified: typeof claims.email_verified === "boolean"
        ? claims.email_verified
        : claims.email_verified === "false"
        ? false
        : undefined,
      name: str(claims.name),
      picture: str(claims.picture),
    };
  }
}

/** Short, secret-free text of a library error (its code and message, never a token). */
function errorText(e: unknown): string {
  if (e instanceof oauth.ResponseBodyError) return `${e.error}: ${e.error_description ?? ""}`;
  if (e instanceof oauth.AuthorizationResponseError) {
    return `${e.error}: ${e.error_description ?? ""}`;
  }
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return `${typeof code === "string" ? `${code}: ` : ""}${e.message}`;
  }
  return String(e);
}

/** Every configured provider by registration name. */
export class OidcClients {
  readonly #providers = new Map<string, ProviderClient>();
  readonly #baseUrl: string;

  constructor(providers: OidcProviderConfig[], baseUrl: string | undefined) {
    for (const p of providers) this.#providers.set(p.name, new ProviderClient(p));
    this.#baseUrl = baseUrl ?? "";
  }

  has(name: string): boolean {
    return this.#providers.has(name);
  }

  /** Built only from the configured base-url, never from request headers, which a client writes. */
  redirectUri(name: string): string {
    return `${this.#baseUrl}/login/oauth2/code/${name}`;
  }

  authorizationUrl(name: string): Promise<{ url: URL; state: AuthorizationState }> {
    return this.#get(name).authorizationUrl(this.redirectUri(name));
  }

  complete(name: string, callback: URL, kept: AuthorizationState): Promise<IdentityClaims> {
    return this.#get(name).complete(callback, this.redirectUri(name), kept);
  }

  #get(name: string): ProviderClient {
    const p = this.#providers.get(name);
    if (!p) throw new OidcFailure("unknown_provider", `no provider named ${name}`);
    return p;
  }
}
