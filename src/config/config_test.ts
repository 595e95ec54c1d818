import { deepEqual, equal, match, ok, rejects, throws } from "node:assert/strict";
import { envName, leaves } from "./leaves.ts";
import { loadConfig, mailEnabled, readSources, resolveSecrets, StartupError } from "./mod.ts";
import { resolveConfig } from "./resolve.ts";

const resolve = (env: Record<string, string>, file?: string) =>
  resolveConfig(readSources(env, file ? { name: "cfg.yaml", text: file } : undefined), env);

function refusal(env: Record<string, string>, file?: string): string {
  try {
    resolve(env, file);
  } catch (e) {
    ok(e instanceof StartupError, String(e));
    return e.message;
  }
  throw new Error("expected a startup refusal");
}

Deno.test("defaults resolve to the embedded store, memory shared store, 127.0.0.1:8080", () => {
  const config = resolve({});
  equal(config.http.host, "127.0.0.1");
  equal(config.http.port, 8080);
  equal(config.store.url, "sqlite:./data/service.db");
  equal(config.store.kind, "sqlite");
  equal(config.sharedStore.kind, "memory");
  equal(config.auth.jwt.ttlHours, 8);
  equal(config.auth.local.lockout.maxFailures, 5);
});

Deno.test("envName() follows the DECISIONS.md naming rule", () => {
  equal(envName("service.auth.jwt.ttl-hours"), "SERVICE_AUTH_JWT_TTL_HOURS");
  equal(
    envName("service.auth.oidc.providers[].client-id"),
    "SERVICE_AUTH_OIDC_PROVIDERS_{i}_CLIENT_ID",
  );
  ok(leaves().some((l) => l.env === "SERVICE_SHARED_STORE_URL"));
});

Deno.test("the environment overrides the file, types are coerced, lists split on commas", () => {
  const config = resolve(
    {
      SERVICE_HTTP_PORT: "9001",
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_ALLOWLIST_DOMAINS: "a.example, b.example",
      SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_SECRET: "from-env",
    },
    [
      "service:",
      "  http: { port: 9000, host: 0.0.0.0 }",
      "  auth:",
      "    base-url: https://svc.example",
      "    oidc:",
      "      providers:",
      "        - { name: corp, client-id: c1, client-secret: s1, issuer-uri: 'https://idp.example' }",
    ].join("\n"),
  );
  equal(config.http.port, 9001);
  equal(config.http.host, "0.0.0.0");
  equal(config.auth.local.enabled, true);
  deepEqual(config.auth.allowlistDomains, ["a.example", "b.example"]);
  equal(config.auth.oidc.providers[0].clientSecret, "from-env");
  equal(config.auth.oidc.providers[0].name, "corp");
});

Deno.test("a JSON file is accepted like YAML", () => {
  equal(resolve({}, '{"service": {"log": {"level": "debug"}}}').log.level, "debug");
});

Deno.test("unknown keys are refused by name, from the file and from the environment", () => {
  equal(
    refusal({}, "service:\n  http:\n    prot: 1\n"),
    "service.http.prot: unknown configuration key",
  );
  equal(
    refusal({ SERVICE_HTTP_PROT: "1" }),
    "SERVICE_HTTP_PROT: unknown configuration key (environment variable)",
  );
  equal(refusal({}, "other: 1\n"), "other: unknown configuration key");
});

Deno.test("invalid values are refused with the key, the problem and the origin", () => {
  match(
    refusal({ SERVICE_HTTP_PORT: "abc" }),
    /^service\.http\.port: .*number.* \(from environment variable SERVICE_HTTP_PORT\)$/,
  );
  match(refusal({ SERVICE_HTTP_PORT: "70000" }), /^service\.http\.port: .*65535/);
  match(
    refusal({}, "service:\n  log: { level: loud }\n"),
    /^service\.log\.level: .* \(from config file cfg\.yaml\)$/,
  );
  match(
    refusal({ SERVICE_STORE_URL: "mysql://x" }),
    /^service\.store\.url: must start with sqlite: or postgres:\/\//,
  );
  match(
    refusal({ SERVICE_AUTH_LOCAL_ENABLED: "yes" }),
    /^service\.auth\.local\.enabled: .*boolean/,
  );
});

Deno.test("startup refusals: obsolete keys, reserved provider names, base-url, postgres secrets", () => {
  match(
    refusal({}, "service:\n  auth:\n    workspace-provisioning:\n      mode: auto\n"),
    /^service\.auth\.workspace-provisioning\.mode: obsolete key/,
  );
  const provider = (name: string) =>
    `service:\n  auth:\n    base-url: https://s.example\n    oidc:\n      providers:\n        - { name: ${name}, client-id: a, client-secret: b, issuer-uri: 'https://i.example' }\n`;
  match(refusal({}, provider("system")), /provider name 'system' is reserved/);
  match(
    refusal({}, provider("corp").replace("    base-url: https://s.example\n", "")),
    /^service\.auth\.base-url: required when an OIDC provider/,
  );
  match(
    refusal({ SERVICE_STORE_URL: "postgres://localhost/x" }),
    /^SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY: required with a PostgreSQL store/,
  );
  match(refusal({ SERVICE_JWT_SECRET: btoa("short") }), /^SERVICE_JWT_SECRET: must be at least 32/);
  match(
    refusal({ SERVICE_ENCRYPTION_KEY: "%%%" }),
    /^SERVICE_ENCRYPTION_KEY: must be exactly 32 bytes/,
  );
});

Deno.test("bootstrap seed refusals: both forms, without local accounts, without the email", () => {
  const hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g";
  match(
    refusal({
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "a@b.example",
      SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: "x",
      SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD_HASH: hash,
    }),
    /not both/,
  );
  match(
    refusal({
      SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "a@b.example",
      SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: "x",
    }),
    /needs service\.auth\.local\.enabled=true/,
  );
  match(
    refusal({
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD_HASH: hash,
    }),
    /needs service\.auth\.bootstrap-admin-email/,
  );
  match(
    refusal({ SERVICE_AUTH_BOOTSTRAP_DATASOURCE_FILE: "/x.yaml" }),
    /bootstrap-datasource-file: needs/,
  );
  match(
    refusal({ SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD_HASH: "plain" }),
    /bootstrap-password-hash/,
  );
});

Deno.test("a missing config file is refused with its name", async () => {
  await rejects(
    loadConfig({}, "/nonexistent/cfg.yaml"),
    /config file \/nonexistent\/cfg\.yaml: cannot be read/,
  );
  throws(() => resolve({}, "service: [unclosed"), /not valid YAML or JSON/);
});

Deno.test("resolveSecrets() generates 0600 files once on the embedded store and reuses them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = resolve({ SERVICE_DATA_DIR: dir });
    const first = await resolveSecrets(config, {});
    deepEqual(first.generated.sort(), [
      `${dir}/secrets/encryption_key`,
      `${dir}/secrets/jwt_secret`,
    ]);
    equal(first.encryptionKey.length, 32);
    equal((await Deno.stat(`${dir}/secrets/jwt_secret`)).mode! & 0o777, 0o600);
    // A file (or the directory) left open to others is narrowed when it is read again.
    await Deno.chmod(`${dir}/secrets/jwt_secret`, 0o644);
    await Deno.chmod(`${dir}/secrets`, 0o755);
    const second = await resolveSecrets(config, {});
    deepEqual(second.generated, []);
    deepEqual(second.jwtSecret, first.jwtSecret);
    equal((await Deno.stat(`${dir}/secrets/jwt_secret`)).mode! & 0o777, 0o600);
    equal((await Deno.stat(`${dir}/secrets`)).mode! & 0o777, 0o700);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startup refusals: all reserved names, the second obsolete key, a tenant template issuer", () => {
  const provider = (name: string, issuer = "https://i.example") =>
    `service:\n  auth:\n    base-url: https://s.example\n    oidc:\n      providers:\n        - { name: ${name}, client-id: a, client-secret: b, issuer-uri: '${issuer}' }\n`;
  for (const name of ["bootstrap", "local", "system"]) {
    match(refusal({}, provider(name)), new RegExp(`provider name '${name}' is reserved`));
  }
  match(
    refusal({}, "service:\n  auth:\n    workspace-provisioning:\n      default-workspace: x\n"),
    /^service\.auth\.workspace-provisioning\.default-workspace: obsolete key/,
  );
  for (
    const issuer of [
      "https://login.example/{tenantid}/v2.0",
      "https://login.example/%7Btenant%7D/v2.0",
    ]
  ) {
    match(refusal({}, provider("corp", issuer)), /multi-tenant template/, issuer);
  }
  equal(
    resolve({}, provider("corp", "https://login.example/contoso/v2.0")).auth.oidc.providers[0]
      .name,
    "corp",
  );
});

Deno.test("the bootstrap datasource file must parse as a list of named datasources", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = (text: string) => {
      Deno.writeTextFileSync(`${dir}/ds.yaml`, text);
      return {
        SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "root@corp.example",
        SERVICE_AUTH_BOOTSTRAP_DATASOURCE_FILE: `${dir}/ds.yaml`,
      };
    };
    resolve(env("- name: warehouse\n  dialect: POSTGRES\n"));
    resolve(env('{"datasources": [{"name": "w"}]}'));
    match(refusal(env("name: warehouse\n")), /must be a list of datasources/);
    match(refusal(env("- dialect: POSTGRES\n")), /entry 0 needs a name/);
    match(refusal(env("- [unclosed\n")), /neither YAML nor JSON/);
    match(
      refusal({ ...env(""), SERVICE_AUTH_BOOTSTRAP_DATASOURCE_FILE: `${dir}/missing.yaml` }),
      /missing\.yaml cannot be read/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
Deno.test("mail: on exactly when host and from are set; its refusals", () => {
  const on = {
    SERVICE_MAIL_HOST: "smtp.example.com",
    SERVICE_MAIL_FROM: "Service <noreply@example.com>",
    SERVICE_AUTH_BASE_URL: "https://svc.example",
  };
  const config = resolve({
    ...on,
    SERVICE_MAIL_OPS_RECIPIENTS: "ops@example.com, oncall@x.example",
  });
  equal(mailEnabled(config), true);
  equal(config.mail.port, 587);
  deepEqual(config.mail.opsRecipients, ["ops@example.com", "oncall@x.example"]);
  equal(mailEnabled(resolve({ SERVICE_MAIL_HOST: "smtp.example.com" })), false);
  equal(mailEnabled(resolve({ SERVICE_MAIL_FROM: "noreply@example.com" })), false);
  equal(mailEnabled(resolve({})), false);
  match(
    refusal({ SERVICE_MAIL_HOST: "smtp.example.com", SERVICE_MAIL_FROM: "noreply@example.com" }),
    /service\.auth\.base-url: required when mail is on/,
  );
  match(
    refusal({ ...on, SERVICE_MAIL_USERNAME: "svc" }),
    /service\.mail\.username: set username and password together/,
  );
  match(refusal({ ...on, SERVICE_MAIL_OPS_RECIPIENTS: "not-an-address" }), /ops-recipients/);
  match(
    refusal({ ...on, SERVICE_MAIL_FROM: "Service" }),
    /service\.mail\.from: must be an address/,
  );
  equal(
    resolve({ ...on, SERVICE_MAIL_FROM: "noreply@example.com" }).mail.from,
    "noreply@example.com",
  );
});

Deno.test("endpoint timeout bounds default to 1 and 300 s and must be ordered", () => {
  const config = resolve({});
  deepEqual(config.endpoints, { timeoutMinSeconds: 1, timeoutMaxSeconds: 300 });
  equal(
    refusal({
      SERVICE_ENDPOINTS_TIMEOUT_MIN_SECONDS: "60",
      SERVICE_ENDPOINTS_TIMEOUT_MAX_SECONDS: "30",
    }),
    "service.endpoints.timeout-min-seconds: must not exceed service.endpoints.timeout-max-seconds",
  );
});

Deno.test("the memory: store's cap comes from service.shared-store.memory-max-bytes", () => {
  equal(resolve({}).sharedStore.memoryMaxBytes, 1024 * 1024 * 1024);
  const env = { SERVICE_SHARED_STORE_MEMORY_MAX_BYTES: String(2 * 1024 * 1024) };
  equal(resolve(env).sharedStore.memoryMaxBytes, 2 * 1024 * 1024);
  match(refusal({ SERVICE_SHARED_STORE_MEMORY_MAX_BYTES: "1000" }), /memory-max-bytes/);
});
