/** OIDC issuer helpers shared by the startup refusals and the identity domain. */

/**
 * Matches `{tenantid}`-style placeholders, raw or percent-encoded
 * (docs/access.md#signing-in-with-an-openid-provider).
 */
const TEMPLATE = /\{[^}]*\}|%7B[^%]*%7D/i;

/** True when an issuer URL carries a multi-tenant template instead of naming its tenant. */
export function hasTenantTemplate(issuer: string): boolean {
  return TEMPLATE.test(issuer);
}
