/** Shared set-up for the version tests: a workspace, two authors, bodies per kind, assertions. */
import { AppError } from "../errors/mod.ts";
import type { Principal } from "../identity/mod.ts";
import { insertUser, insertWorkspace as addWorkspace } from "../store/row_fixtures.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { PIPELINE_KIND, TEMPLATE_KIND } from "./kinds.ts";
import { VersionLifecycle } from "./service.ts";
import type {
  IndexAttrs,
  JsonObject,
  KindDescriptor,
  LifecycleHook,
  LifecycleHooks,
  OpContext,
} from "./types.ts";

export const KINDS: readonly KindDescriptor[] = [PIPELINE_KIND, TEMPLATE_KIND];

/** A hook refusing the version it is run for with `pipeline.version.not_eligible` and `reason`. */
export function refusingHook(reason: string): LifecycleHook {
  return (_tx, { entity, version }) => {
    throw new AppError("pipeline.version.not_eligible", {
      pipeline_id: entity.id,
      version: version.version,
      status: version.status,
      reason,
    });
  };
}

/** Inserts a user row and returns it as a session principal. */
export async function addUser(db: Queryable, email: string): Promise<Principal> {
  const id = await insertUser(db, email);
  return {
    userId: id,
    email,
    displayName: email,
    provider: "local",
    isSuperAdmin: false,
    authMethod: "OIDC",
    mustChangePassword: false,
    scopes: [],
  };
}

export { addWorkspace };

/** A kind's world: its lifecycle under a posture, a workspace, two authors and their contexts. */
export interface World {
  k: KindDescriptor;
  life: VersionLifecycle;
  /** The same kind under the other posture, over the same store. */
  hardened: VersionLifecycle;
  workspaceId: string;
  alice: Principal;
  bob: Principal;
  asAlice: OpContext;
  asBob: OpContext;
}

let counter = 0;

/** Builds a world per kind on `db` (development posture unless told). */
export async function worlds(
  db: Db,
  hooks: Partial<LifecycleHooks> = {},
): Promise<World[]> {
  const out: World[] = [];
  for (const k of KINDS) {
    const n = ++counter;
    const workspaceId = await addWorkspace(db, `ws-${k.kind}-${n}`);
    const alice = await addUser(db, `alice-${k.kind}-${n}@x.example`);
    const bob = await addUser(db, `bob-${k.kind}-${n}@x.example`);
    out.push({
      k,
      life: new VersionLifecycle({ db, kind: k, authoringEnabled: true, hooks }),
      hardened: new VersionLifecycle({ db, kind: k, authoringEnabled: false, hooks }),
      workspaceId,
      alice,
      bob,
      asAlice: { actor: alice, workspaceId },
      asBob: { actor: bob, workspaceId },
    });
  }
  return out;
}

/**
 * A body of the kind named `name` with a distinguishing `marker`. A pipeline carries its name and
 * display fields; a template its id (the name) and SQL, with display fields on the index row.
 */
export function bodyOf(k: KindDescriptor, name: string, marker: string | number = 0): JsonObject {
  return k.kind === "pipeline"
    ? {
      name,
      display_name: `Pipeline ${marker}`,
      description: `about ${marker}`,
      schema_version: 1,
      nodes: [{ id: "read", type: "DQL", source: "demo", sql: `SELECT ${JSON.stringify(marker)}` }],
    }
    : { id: name, type: "sql", dialect: "POSTGRES", imports: [], body: `SELECT '${marker}'` };
}

/** Index columns a create stores: templates carry type, dialect and display fields there. */
export function attrsOf(k: KindDescriptor, marker: string | number = 0): IndexAttrs {
  return k.kind === "pipeline"
    ? {}
    : { type: "sql", dialect: "POSTGRES", display_name: `Template ${marker}`, description: null };
}

/** Creates an entity named `name` as Alice; returns its id and draft hash. */
export async function createOne(w: World, name = `team/${w.k.kind}-${++counter}`) {
  const saved = await w.life.create(w.asAlice, {
    name,
    body: bodyOf(w.k, name, "v1"),
    attrs: attrsOf(w.k, "v1"),
  });
  return { id: saved.entity.id, name, hash: saved.version.body_hash };
}

/** Creates and releases version 1; returns id, name and the release's hash. */
export async function releasedOne(w: World, name?: string) {
  const made = await createOne(w, name);
  await w.life.release(w.asAlice, made.id, made.hash);
  return made;
}

/** `releasedOne`, then a second version (body `label`) released over it: `hash2` is its hash. */
export async function releasedTwo(w: World, label = "v2") {
  const one = await releasedOne(w);
  const body = bodyOf(w.k, one.name, label);
  const d2 = await w.life.update(w.asAlice, one.id, one.hash, { body });
  await w.life.release(w.asAlice, one.id, d2.version.body_hash);
  return { ...one, hash2: d2.version.body_hash };
}

/** `pipeline.x` or `template.x`. */
export const ev = (w: World, suffix: string) => `${w.k.kind}.${suffix}`;

/** The version numbers and statuses of an entity, e.g. `["1:RELEASED", "2:DRAFT"]`. */
export async function shape(w: World, id: string): Promise<string[]> {
  return (await w.life.versions(w.workspaceId, id)).map((m) => `${m.version}:${m.status}`);
}
