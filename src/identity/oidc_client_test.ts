import { equal, ok, rejects } from "node:assert/strict";
import { hasTenantTemplate } from "../lib/issuer.ts";
import { OidcClients, OidcFailure } from "./oidc_client.ts";

Deno.test("hasTenantTemplate() spots raw and encoded placeholders only", () => {
  ok(hasTenantTemplate("https://login.example/{tenantid}/v2.0"));
  ok(hasTenantTemplate("https://login.example/%7Btenantid%7D/v2.0"));
  equal(hasTenantTemplate("https://login.example/contoso/v2.0"), false);
});

/**
 * A multi-tenant issuer's metadata names a template as its issuer. Such a document can only be
 * served by hand: this listener answers discovery the way a multi-tenant endpoint does.
 */
Deno.test("discovery refuses metadata whose issuer carries a tenant template", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const origin = new URL(req.url).origin;
    return Response.json({
      issuer: `${origin}/{tenantid}/v2.0`,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      jwks_uri: `${origin}/keys`,
    });
  });
  try {
    const issuer = `http://127.0.0.1:${server.addr.port}/common/v2.0`;
    const clients = new OidcClients([
      { name: "ms", clientId: "c", clientSecret: "s", issuerUri: issuer },
    ], "https://svc.example");
    equal(clients.redirectUri("ms"), "https://svc.example/login/oauth2/code/ms");
    await rejects(
      clients.authorizationUrl("ms"),
      (e) => e instanceof OidcFailure && e.reason === "tenant_template",
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("a provider that does not answer is a discovery failure on every attempt (nothing cached)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const clients = new OidcClients([
    { name: "corp", clientId: "c", clientSecret: "s", issuerUri: `http://127.0.0.1:${port}` },
  ], "https://svc.example");
  for (let i = 0; i < 2; i++) {
    await rejects(
      clients.authorizationUrl("corp"),
      (e) => e instanceof OidcFailure && e.reason === "discovery_failed",
    );
  }
});
