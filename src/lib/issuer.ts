/** OIDC issuer helpers shared by the startup refusals and the identity domain. */

/** Matches `{tenantid}`-style placeholders, raw or percent-encoded (spec 1 §5.2 item 2). */
const TEMPLATE = /\{[^}]*\}|%7B[^%]*%7D/i;

/** True when an issuer URL carries a multi-tenant template instead of naming its tenant. */
export function hasTenantTemplate(issuer: string): boolean {
  return TEMPLATE.test(issuer);
}
