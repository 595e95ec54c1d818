/**
 * Two deployments for the promotion sender tests, in this process: a hardened production (the
 * receiver) and a development deployment whose promotion target is it. Both get workspace `acme`
 * with every role, and datasource `wh` over a real SQLite file.
 */
import { equal } from "node:assert/strict";
import { type AccessFixture, seedRoles, sessionHeaders } from "./access_fixtures.ts";
import { call, type Json, startTestServer, type TestServer } from "./harness.ts";
import { sqliteFile, sqliteSource } from "./pipeline_client.ts";
import type { StoreKind } from "./stores.ts";

export interface Deployment {
  s: TestServer;
  f: AccessFixture;
  /** Super admin session in acme. */
  admin: Record<string, string>;
  /** Promoter session in acme. */
  promoter: Record<string, string>;
  req(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{
    status: number;
    body: Json;
  }>;
}

export async function deployment(
  kind: StoreKind,
  env: Record<string, string>,
  datasources = ["wh"],
): Promise<Deployment> {
  const s = await startTestServer({ store: kind, env });
  const f = await seedRoles(s.runtime);
  const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
  const promoter = await sessionHeaders(s.runtime, f.users.promoter, "acme");
  const file = await sqliteFile();
  for (const name of datasources) {
    const ds = await call(s, "POST", "/api/v1/datasources", admin, sqliteSource(name, file));
    equal(ds.status, 201, JSON.stringify(ds.body));
  }
  return { s, f, admin, promoter, req: (m, p, h, b) => call(s, m, p, h, b) };
}

/** Mints a server key on `target` (super admin session); answers `{id, key}`. */
export async function mintServerKey(target: Deployment, name = "promotion") {
  const r = await target.req("POST", "/api/v1/auth/api-keys", target.admin, {
    name,
    kind: "server",
  });
  equal(r.status, 201, JSON.stringify(r.body));
  return { id: String(r.body.data.id), key: String(r.body.data.key) };
}

/** Saves a pipeline (create or update) and releases it; answers its id and released version. */
export async function release(
  d: Deployment,
  body: Json,
  id?: string,
): Promise<{ id: string; version: number }> {
  let saved;
  if (!id) {
    saved = await d.req("POST", "/api/v1/pipelines", d.admin, body);
    equal(saved.status, 201, JSON.stringify(saved.body));
  } else {
    const cur = await d.req("GET", `/api/v1/pipelines/${id}`, d.admin);
    saved = await d.req("PUT", `/api/v1/pipelines/${id}`, {
      ...d.admin,
      "If-Match": String(cur.body.data.body_hash),
    }, body);
    equal(saved.status, 200, JSON.stringify(saved.body));
  }
  const pid = String(saved.body.data.id);
  const rel = await d.req(
    "POST",
    `/api/v1/pipelines/${pid}/release?release_pinned_templates=true`,
    { ...d.admin, "If-Match": String(saved.body.data.body_hash) },
  );
  equal(rel.status, 200, JSON.stringify(rel.body));
  return { id: pid, version: Number(rel.body.data.version) };
}

/** A draft sql template on `d` (released by a pipeline release's cascade). */
export async function template(d: Deployment, id: string, body: string) {
  const t = await d.req("POST", "/api/v1/templates", d.admin, {
    id,
    dialect: "SQLITE",
    display_name: id,
    body,
  });
  equal(t.status, 201, JSON.stringify(t.body));
  return t.body.data;
}

/** A production deployment: authoring off, promotion accepted. */
export const HARDENED = {
  SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "false",
  SERVICE_DEPLOYMENT_NAME: "production",
};

/**
 * A hardened production and a development deployment whose promotion target it is, holding a
 * server key of production's; `devEnv` adds settings to development.
 */
export async function pair(
  kind: StoreKind,
  targetEnv: Record<string, string> = HARDENED,
  devEnv: Record<string, string> = {},
) {
  const prod = await deployment(kind, targetEnv);
  const { key } = await mintServerKey(prod);
  const dev = await deployment(kind, {
    SERVICE_DEPLOYMENT_NAME: "development",
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: prod.s.url,
    SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: key,
    ...devEnv,
  }, ["wh", "wh2"]);
  return { prod, dev, key };
}

/** `pair`, both deployments closed after `fn`. */
export async function withPair(
  kind: StoreKind,
  fn: (p: Awaited<ReturnType<typeof pair>>) => Promise<void>,
  targetEnv?: Record<string, string>,
  devEnv?: Record<string, string>,
): Promise<void> {
  const p = await pair(kind, targetEnv, devEnv);
  try {
    await fn(p);
  } finally {
    await p.dev.s.close();
    await p.prod.s.close();
  }
}

/** What production holds in `acme`, as the promotion key reads it. */
export async function inventory(prod: Deployment, key: string): Promise<Json> {
  const r = await prod.req("GET", "/api/v1/promotion/inventory?workspace=acme", {
    "SVC-Promotion-Key": key,
  });
  equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}
