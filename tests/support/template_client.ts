/** A running app with seeded roles and request helpers for the template route tests. */
import { equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./access_fixtures.ts";
import { call, startTestServer } from "./harness.ts";
import { forEachStoreKind, type StoreKind } from "./stores.ts";

export const T = "/api/v1/templates";
export const q = (params: Record<string, string | number>) =>
  "?" + new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));

export async function world(store: StoreKind = "sqlite") {
  const s = await startTestServer({ store });
  const f = await seedRoles(s.runtime);
  const h = {
    author: await sessionHeaders(s.runtime, f.users.author, "acme"),
    promoter: await sessionHeaders(s.runtime, f.users.promoter, "acme"),
    key: { "SVC-API-Key": await userKey(s.runtime, f.users.ws_admin, f.workspace.id, ["author"]) },
  };
  const as = (who: Record<string, string>, ifMatch?: string) =>
    ifMatch === undefined ? who : { ...who, "If-Match": ifMatch };
  const req = (
    method: string,
    path: string,
    who: Record<string, string>,
    body?: unknown,
    ifMatch?: string,
  ) => call(s, method, path, as(who, ifMatch), body);
  return { s, f, h, req };
}

export function expectError(
  res: { status: number; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  const error = (res.body as { error?: { code: string } }).error;
  equal(
    `${res.status} ${error?.code}`,
    `${status} ${code}`,
    JSON.stringify(res.body).slice(0, 400),
  );
  return (res.body as { error: { details: Record<string, unknown> } }).error.details;
}

export const create = (id: string, body = "SELECT 1", extra: Record<string, unknown> = {}) => ({
  id,
  dialect: "POSTGRES",
  display_name: `T ${id}`.slice(0, 100),
  body,
  ...extra,
});

export async function withWorld(
  fn: (w: World) => Promise<void>,
  store: StoreKind = "sqlite",
) {
  const w = await world(store);
  try {
    await fn(w);
  } finally {
    await w.s.close();
  }
}

export type World = Awaited<ReturnType<typeof world>>;

/** Registers `name` on both stores (`[sqlite] …`, `[postgres] …`), each on a fresh app. */
export function worldTest(name: string, fn: (w: World) => Promise<void>): void {
  forEachStoreKind(name, (kind) => withWorld(fn, kind));
}
