/**
 * The datasource registry's use cases (docs/datasources.md): register, read, list, update, delete.
 * The front end has judged the operation of the matrix (bound write or instance write) in the
 * workspace it passes as `scope`; these functions re-check what only the row can tell (global or
 * not, its binding) and the write rules: global changes are the super admin's, a workspace admin
 * writes only while member writes are enabled, a binding must be the judged workspace. Every change
 * writes its audit row in its own transaction; secrets are sealed before the row is.
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import { newId } from "../lib/ids.ts";
import { isUniqueViolation, type Queryable } from "../store/mod.ts";
import { credentialKindsFor, poolReport, validateProperties } from "./connectors/mod.ts";
import { type DefinitionInput, invalidField, parseDefinition, propertiesInvalid } from "./input.ts";
import * as repo from "./repo.ts";
import type { CredentialCipher } from "./secrets.ts";
import {
  type CredentialKind,
  type DatasourceRecord,
  type DatasourceReference,
  type DatasourceView,
  type DatasourceViewer,
  type Dialect,
  DIALECTS,
  type ReferenceFinder,
  type WriteTarget,
} from "./types.ts";
import type { Counted } from "../lib/paged_view.ts";

/** What the registry needs from its surroundings. */
export interface RegistryDeps {
  db: import("../store/mod.ts").Db;
  cipher: CredentialCipher;
  /** `service.datasources.member-writes-enabled`. */
  memberWritesEnabled: boolean;
  /** A live (not deleted) workspace by name, for bindings a super admin names. */
  findWorkspace(name: string): Promise<{ id: string; name: string } | null>;
  /** Called after a change commits, so pools built from the old definition are retired. */
  onChanged(name: string, change: "created" | "updated" | "deleted"): void;
  /** What blocks a delete (`datasource.in_use`); run inside the delete's transaction. */
  referenceFinders: ReferenceFinder[];
}

// --- output ---------------------------------------------------------------------------------------

/** The response shape; never the secret (docs/decisions.md#credentials-are-write-only). */
export function viewOf(d: DatasourceRecord): DatasourceView {
  const hasSecret = d.credential_kind !== "none";
  return {
    name: d.name,
    display_name: d.display_name,
    dialect: d.dialect,
    jdbc_url: d.jdbc_url,
    credential: { kind: d.credential_kind, ...(d.username ? { username: d.username } : {}) },
    password_set: hasSecret,
    username: d.username,
    ...(d.include_schemas.length ? { introspection_include_schemas: d.include_schemas } : {}),
    properties: d.properties,
    global: d.is_global,
    workspace: d.workspace_name,
    readonly: d.readonly,
    last_test: d.last_test,
    pool: poolReport(d, d.properties.hikari ?? {}),
    facts: [],
    definitions: [],
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

// --- rules ------------------------------------------------------------------------------------------

/** Who reads, from the caller and the workspace the request acts in. */
export function viewerOf(actor: Principal, scope: WorkspaceContext | null): DatasourceViewer {
  return { workspaceId: scope?.id ?? null, isSuperAdmin: actor.isSuperAdmin };
}

function forbidden(reason: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("datasource.validation.workspace_forbidden", { reason, ...details });
}

function notFound(name: string): AppError {
  return new AppError("datasource.not_found", { datasource: String(name).slice(0, 100) });
}

function requireSuperAdmin(actor: Principal): void {
  if (!actor.isSuperAdmin) {
    throw new AppError("auth.role_required", {
      required: "super_admin",
      held: [],
      reason: "global datasources are instance administration",
    });
  }
}

/** A workspace-bound write: the judged workspace's admin, while member writes are enabled. */
function requireMemberWrite(deps: RegistryDeps, actor: Principal, ws: WorkspaceContext): void {
  if (actor.isSuperAdmin) return;
  if (!ws.flags?.admin) {
    throw new AppError("auth.role_required", { required: "ws_admin", held: [] });
  }
  if (!deps.memberWritesEnabled) {
    throw forbidden(
      "datasource writes by workspace members are disabled (service.datasources.member-writes-enabled)",
      { workspace: ws.name },
    );
  }
}

/**
 * The kind of a definition sent without any credential: a server dialect needs a password (so a
 * forgotten one is `password_missing`, not a silent `none`); files and lakes default to `none`.
 */
function defaultKind(dialect: Dialect): CredentialKind {
  const accepted = credentialKindsFor(dialect);
  if (dialect === "POSTGRES" || dialect === "MYSQL") return "password";
  return accepted.includes("none") ? "none" : accepted[0];
}

function checkKind(dialect: Dialect, kind: CredentialKind): void {
  const accepted = credentialKindsFor(dialect);
  if (!accepted.includes(kind)) {
    throw propertiesInvalid(
      "credential.kind",
      `${dialect} accepts the credential kinds ${accepted.join(", ")}`,
      { kind, accepted },
    );
  }
}

/** The stored credential columns a definition ends with. */
async function sealCredential(
  deps: RegistryDeps,
  input: DefinitionInput,
  stored: DatasourceRecord | undefined,
): Promise<Pick<DatasourceRecord, "credential_kind" | "username" | "secret_ciphertext">> {
  const cred = input.credential;
  if (!cred) {
    if (stored) {
      checkKind(input.dialect, stored.credential_kind);
      // Only the credential: the caller spreads this over the new definition.
      const { credential_kind, username, secret_ciphertext } = stored;
      return { credential_kind, username, secret_ciphertext };
    }
    const kind = defaultKind(input.dialect);
    if (kind !== "none") throw new AppError("datasource.validation.password_missing", { kind });
    return { credential_kind: "none", username: null, secret_ciphertext: null };
  }
  checkKind(input.dialect, cred.kind);
  if (cred.kind === "none") {
    // A user name without a secret is how trust or peer authentication connects.
    if (cred.secret !== undefined) throw propertiesInvalid("credential", "kind none has no secret");
    return { credential_kind: "none", username: cred.username, secret_ciphertext: null };
  }
  const sameKind = stored?.credential_kind === cred.kind;
  let sealed: string;
  if (cred.secret !== undefined) sealed = await deps.cipher.seal(input.name, cred.secret);
  else if (sameKind && stored.secret_ciphertext) sealed = stored.secret_ciphertext;
  else throw new AppError("datasource.validation.password_missing", { kind: cred.kind });
  return {
    credential_kind: cred.kind,
    username: cred.usernameOmitted && sameKind ? stored.username : cred.username,
    secret_ciphertext: sealed,
  };
}

/**
 * The record's fields a saved definition sets, on create and update alike, once the test pool
 * build at save (URL form, driver options and pool ranges, no connection) accepts it.
 */
async function definedFields(
  deps: RegistryDeps,
  input: DefinitionInput,
  stored: DatasourceRecord | undefined,
  global: boolean,
  workspace: { id: string; name: string } | null,
) {
  validateProperties(input);
  return {
    dialect: input.dialect,
    jdbc_url: input.jdbc_url,
    ...await sealCredential(deps, input, stored),
    include_schemas: input.include_schemas,
    properties: input.properties,
    is_global: global,
    workspace_id: workspace?.id ?? null,
    workspace_name: workspace?.name ?? null,
  };
}

function audit(
  tx: Queryable,
  actor: Principal,
  event: AuditEventName,
  d: DatasourceRecord,
  details: Record<string, unknown> = {},
): Promise<void> {
  return recordAudit(tx, {
    event,
    by: actor,
    workspaceId: d.workspace_id,
    details: {
      datasource: d.name,
      dialect: d.dialect,
      global: d.is_global,
      workspace: d.workspace_name,
      ...details,
    },
  });
}

// --- use cases --------------------------------------------------------------------------------------

/** Registers a datasource (201). `scope` is the workspace the bound write was judged in. */
export async function createDatasource(
  deps: RegistryDeps,
  actor: Principal,
  scope: WorkspaceContext | null,
  body: unknown,
): Promise<DatasourceView> {
  const input = parseDefinition(body);
  const global = input.global ?? false;
  let workspace: { id: string; name: string } | null = null;
  if (global) {
    requireSuperAdmin(actor);
    if (input.workspace) throw forbidden("a global datasource is bound to no workspace");
  } else {
    if (!scope) throw forbidden("no workspace to bind to: name one or select one");
    if (input.workspace && input.workspace !== scope.name) {
      throw forbidden("the binding must be a workspace you can write in", {
        workspace: input.workspace,
      });
    }
    requireMemberWrite(deps, actor, scope);
    workspace = scope;
  }
  const now = new Date().toISOString();
  const record: DatasourceRecord = {
    id: newId(),
    name: input.name,
    display_name: input.display_name ?? input.name,
    ...await definedFields(deps, input, undefined, global, workspace),
    readonly: input.readonly ?? false,
    last_test: null,
    created_by: actor.userId,
    updated_by: actor.userId,
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.db.transaction(async (tx) => {
      await repo.insert(tx, record, deps.cipher.keyVersion);
      await audit(tx, actor, "datasource.created", record);
    });
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError("datasource.validation.duplicate_name", { name: record.name });
    }
    throw e;
  }
  // A pool of an earlier datasource of this name (deleted elsewhere) must not serve this one.
  deps.onChanged(record.name, "created");
  return viewOf(record);
}

/** One datasource the viewer can see; another workspace's is `datasource.not_found`. */
export async function getDatasource(
  deps: RegistryDeps,
  viewer: DatasourceViewer,
  name: string,
): Promise<DatasourceRecord> {
  const row = typeof name === "string" && name.length <= 200
    ? await repo.findVisible(deps.db, viewer, name)
    : undefined;
  if (!row) throw notFound(name);
  return row;
}

/** A page of what the viewer can see; `total` counts exactly that. */
export async function listDatasources(
  deps: RegistryDeps,
  viewer: DatasourceViewer,
  filter: { dialect?: string; offset: number; limit: number },
): Promise<Counted<DatasourceRecord>> {
  if (filter.dialect !== undefined && !(DIALECTS as readonly string[]).includes(filter.dialect)) {
    throw invalidField("dialect", "is not a supported dialect");
  }
  const { items: rows, total } = await repo.listVisible(deps.db, viewer, {
    dialect: filter.dialect as Dialect | undefined,
    offset: filter.offset,
    limit: filter.limit,
  });
  return { items: rows, total };
}

/** Whether writing `name` is a workspace or an instance operation; undefined when not visible. */
export async function writeTarget(
  deps: RegistryDeps,
  viewer: DatasourceViewer,
  name: string,
): Promise<WriteTarget | undefined> {
  const row = await repo.findVisible(deps.db, viewer, name);
  return row && (row.is_global ? "instance" : "workspace");
}

/**
 * Replaces a definition (name immutable). An omitted secret keeps the stored one while the kind
 * is unchanged; `global`, `readonly` and the binding keep their stored values when absent.
 */
export async function updateDatasource(
  deps: RegistryDeps,
  actor: Principal,
  scope: WorkspaceContext | null,
  name: string,
  body: unknown,
): Promise<DatasourceView> {
  const input = parseDefinition(body, name);
  const stored = await getDatasource(deps, viewerOf(actor, scope), name);
  const global = input.global ?? stored.is_global;
  if (stored.is_global || global) requireSuperAdmin(actor);
  else requireMemberWrite(deps, actor, scope!);

  let workspace: { id: string; name: string } | null = null;
  if (global) {
    if (input.workspace) throw forbidden("a global datasource is bound to no workspace");
  } else if (stored.is_global) {
    const target = input.workspace ?? scope?.name;
    workspace = target ? await deps.findWorkspace(target) : null;
    if (!workspace) {
      throw forbidden("name the workspace the datasource is bound to", { workspace: target });
    }
  } else {
    if (input.workspace && input.workspace !== stored.workspace_name) {
      throw forbidden("a datasource cannot move to another workspace", {
        workspace: input.workspace,
      });
    }
    workspace = { id: stored.workspace_id!, name: stored.workspace_name! };
  }
  const next: DatasourceRecord = {
    ...stored,
    display_name: input.display_name ?? stored.display_name,
    ...await definedFields(deps, input, stored, global, workspace),
    readonly: input.readonly ?? stored.readonly,
    updated_by: actor.userId,
    updated_at: new Date().toISOString(),
  };
  await deps.db.transaction(async (tx) => {
    await repo.update(tx, next, deps.cipher.keyVersion);
    const flip = stored.is_global === global ? undefined : global ? "to_global" : "to_workspace";
    await audit(tx, actor, "datasource.updated", next, flip ? { flip } : {});
    if (flip === "to_global") {
      // The workspace that owned it keeps reaching it: least privilege, not lost access.
      const grantedAt = next.updated_at;
      await repo.insertGrant(tx, {
        datasourceId: next.id,
        workspaceId: stored.workspace_id!,
        grantedBy: actor.userId,
        grantedAt,
      });
      await recordAudit(tx, {
        event: "datasource.granted",
        by: actor,
        workspaceId: stored.workspace_id,
        details: {
          datasource: next.name,
          workspace: stored.workspace_name,
          already_granted: false,
          reason: "became_global",
        },
      });
    } else if (flip === "to_workspace") {
      await repo.deleteGrantsOf(tx, next.id);
    }
  });
  deps.onChanged(name, "updated");
  return viewOf(next);
}

/** Deletes a datasource nothing references (409 `datasource.in_use` otherwise). */
export async function deleteDatasource(
  deps: RegistryDeps,
  actor: Principal,
  scope: WorkspaceContext | null,
  name: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const stored = await repo.findVisible(tx, viewerOf(actor, scope), name);
    if (!stored) throw notFound(name);
    if (stored.is_global) requireSuperAdmin(actor);
    else requireMemberWrite(deps, actor, scope!);
    const references: DatasourceReference[] = [];
    for (const find of deps.referenceFinders) references.push(...await find(tx, stored.name));
    if (references.length > 0) {
      throw new AppError("datasource.in_use", {
        datasource_name: stored.name,
        referencing_pipelines: [...new Set(references.map((r) => r.pipeline))],
        references,
      });
    }
    await repo.remove(tx, stored.id);
    await audit(tx, actor, "datasource.deleted", stored);
  });
  deps.onChanged(name, "deleted");
}
