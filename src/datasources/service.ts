/**
 * Datasources (docs/datasources.md) behind the one service callers construct: the registry
 * (registry.ts), grants (grants.ts), the bootstrap file (bootstrap.ts), and the credential
 * opening every connection goes through. The front end has judged the operation; the use cases
 * enforce tenancy (another workspace's datasource is not-found) and the write rules.
 */
import { recordAudit } from "../audit/mod.ts";
import { type Principal, systemPrincipal, type WorkspaceContext } from "../identity/mod.ts";
import { AppError } from "../errors/mod.ts";
import { factsForDatasource } from "./facts/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { type BootstrapOutcome, importBootstrapFile } from "./bootstrap.ts";
import { grantDatasource, revokeDatasource } from "./grants.ts";
import {
  createDatasource,
  deleteDatasource,
  getDatasource,
  listDatasources,
  type RegistryDeps,
  updateDatasource,
  viewerOf,
  viewOf,
  writeTarget,
} from "./registry.ts";
import * as repo from "./repo.ts";
import { RunRecords } from "./run_records.ts";
import { type CredentialCipher, SealedSecretError } from "./secrets.ts";
import type {
  DatasourceRecord,
  DatasourceView,
  GrantView,
  LastTest,
  OpenCredential,
  ReferenceFinder,
  WriteTarget,
} from "./types.ts";
import type { Counted } from "../lib/paged_view.ts";

/** Construction options of {@link DatasourceService}. */
export interface DatasourceServiceOptions {
  db: Db;
  cipher: CredentialCipher;
  logger: Logger;
  memberWritesEnabled: boolean;
  /** A live (not deleted) workspace by name, deactivated ones included. */
  findWorkspace(name: string): Promise<{ id: string; name: string } | null>;
  /**
   * References that block deleting a datasource (`datasource.in_use`): the pipelines domain owns
   * the stored versions that name datasources, so services.ts passes its finder in.
   */
  referenceFinders?: ReferenceFinder[];
}

/** Why a credential is opened; recorded in the decryption audit row. */
export type CredentialPurpose = "test" | "introspect" | "execute";

type ChangeListener = (name: string, change: "created" | "updated" | "deleted") => void;

/** Every datasource use case over one store; one per process, shared by every request. */
export class DatasourceService {
  readonly #deps: RegistryDeps;
  readonly #logger: Logger;
  readonly #listeners: ChangeListener[] = [];
  readonly #runRecords: RunRecords;

  constructor(options: DatasourceServiceOptions) {
    this.#logger = options.logger;
    this.#deps = {
      db: options.db,
      cipher: options.cipher,
      memberWritesEnabled: options.memberWritesEnabled,
      findWorkspace: options.findWorkspace,
      referenceFinders: options.referenceFinders ?? [],
      onChanged: (name, change) => {
        // Forgotten here before this returns; other instances follow the message.
        this.#runRecords.forget(name);
        for (const listen of this.#listeners) listen(name, change);
      },
    };
    this.#runRecords = new RunRecords((workspaceId, name) =>
      getDatasource(this.#deps, { workspaceId, isSuperAdmin: false }, name)
    );
  }

  /**
   * Follows datasource changes made on other instances (the records runs read are cached here);
   * without it, only this instance's own changes are seen before the cache's maximum age.
   */
  follow(shared: SharedStore): Promise<void> {
    return this.#runRecords.open(shared, this.#logger);
  }

  unfollow(): Promise<void> {
    return this.#runRecords.close();
  }

  /**
   * Opens every stored secret under the current encryption key and forgets it at once: the proof
   * that a restored store came with its key (`main.ts restore`). Nothing connects and no secret
   * leaves this method, so, unlike `openCredential`, nothing is audited.
   */
  async checkSealedSecrets(): Promise<{ checked: number; unreadable: string[] }> {
    const unreadable: string[] = [];
    const sealed = await repo.sealedSecrets(this.#deps.db);
    for (const { name, sealed: text } of sealed) {
      try {
        await this.#deps.cipher.open(name, text);
      } catch (error) {
        if (!(error instanceof SealedSecretError)) throw error;
        unreadable.push(name);
      }
    }
    return { checked: sealed.length, unreadable };
  }

  /** Runs `listen` after every committed save, update or delete (pools retire on it). */
  onChange(listen: ChangeListener): void {
    this.#listeners.push(listen);
  }

  /** Registers a datasource; `scope` is the workspace the write was judged in. */
  create(actor: Principal, scope: WorkspaceContext | null, body: unknown): Promise<DatasourceView> {
    return createDatasource(this.#deps, actor, scope, body);
  }

  /** One visible datasource as served, with its facts; no connection is opened. */
  async get(actor: Principal, scope: WorkspaceContext | null, name: string) {
    return await this.#served(scope, await getDatasource(this.#deps, viewerOf(actor, scope), name));
  }

  /**
   * The response shape with the learned facts the workspace can see: the datasource-wide facts, and
   * the workspace's own rules naming it. Without a workspace context (a super admin at instance
   * level) there is no workspace to judge rules by, so none are served.
   */
  async #served(scope: WorkspaceContext | null, d: DatasourceRecord): Promise<DatasourceView> {
    const view = viewOf(d);
    if (!scope) return view;
    const viewer = { workspaceId: scope.id, visibleDatasourceIds: [d.id] };
    return { ...view, ...await factsForDatasource(this.#deps.db, viewer, d) };
  }

  /** The stored row of a visible datasource (connectors and introspection read it). */
  record(actor: Principal, scope: WorkspaceContext | null, name: string) {
    return getDatasource(this.#deps, viewerOf(actor, scope), name);
  }

  /**
   * A datasource as a workspace's own runs see it: bound there, or a global granted to it.
   * Cached (see run_records.ts): the answer is frozen and shared.
   */
  recordInWorkspace(workspaceId: string, name: string): Promise<DatasourceRecord> {
    return this.#runRecords.get(workspaceId, name);
  }

  /** A page of what the caller can see in `scope`, with the exact total. */
  async list(
    actor: Principal,
    scope: WorkspaceContext | null,
    filter: { dialect?: string; offset: number; limit: number },
  ): Promise<Counted<DatasourceView>> {
    const { items, total } = await listDatasources(this.#deps, viewerOf(actor, scope), filter);
    return { items: await Promise.all(items.map((d) => this.#served(scope, d))), total };
  }

  /** Whether writing `name` is a workspace-bound or an instance write; undefined if not visible. */
  writeTarget(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
  ): Promise<WriteTarget | undefined> {
    return writeTarget(this.#deps, viewerOf(actor, scope), name);
  }

  /** Replaces a definition; the name is immutable and an omitted secret is kept. */
  update(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    body: unknown,
  ): Promise<DatasourceView> {
    return updateDatasource(this.#deps, actor, scope, name, body);
  }

  /** Deletes a datasource nothing references. */
  remove(actor: Principal, scope: WorkspaceContext | null, name: string): Promise<void> {
    return deleteDatasource(this.#deps, actor, scope, name);
  }

  /** Grants a global datasource to a workspace (super admin). */
  async grant(actor: Principal, name: string, workspace: string): Promise<GrantView> {
    const granted = await grantDatasource(this.#deps, actor, name, workspace);
    this.#runRecords.forget(granted.datasource);
    return granted;
  }

  /** Revokes a grant (super admin); idempotent. */
  async revoke(actor: Principal, name: string, workspace: string): Promise<void> {
    await revokeDatasource(this.#deps, actor, name, workspace);
    // A revoked workspace's runs must stop finding it, here and on every instance.
    this.#runRecords.forget(name);
  }

  /** Stores a `/test` outcome as `last_test`; updated_at stays as it was. */
  async recordTest(d: DatasourceRecord, test: LastTest): Promise<void> {
    await repo.setLastTest(this.#deps.db, d.id, test);
  }

  /**
   * Decrypts a datasource's credential for a connection, and audits that it happened (never the
   * secret): `datasource.credential_decrypted` with the purpose and the key version.
   */
  async openCredential(
    actor: { userId: string; provider: string },
    d: DatasourceRecord,
    purpose: CredentialPurpose,
  ): Promise<OpenCredential> {
    if (d.credential_kind === "none" || !d.secret_ciphertext) {
      return { kind: "none", ...(d.username ? { username: d.username } : {}) };
    }
    let secret: string;
    try {
      secret = await this.#deps.cipher.open(d.name, d.secret_ciphertext);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      // A changed SERVICE_ENCRYPTION_KEY, or a ciphertext moved from another row: never usable.
      this.#logger.error("a datasource secret cannot be opened", { datasource: d.name, error });
      await recordAudit(this.#deps.db, {
        event: "datasource.credential_decrypt_failed",
        by: actor,
        workspaceId: d.workspace_id,
        details: { datasource: d.name, purpose },
      });
      throw new AppError("pipeline.execution.datasource_unreachable", {
        datasource: d.name,
        error_class: "credential",
        reason: "the stored secret cannot be opened with the current encryption key; set it again",
      });
    }
    await recordAudit(this.#deps.db, {
      event: "datasource.credential_decrypted",
      by: actor,
      workspaceId: d.workspace_id,
      details: {
        datasource: d.name,
        purpose,
        credential_kind: d.credential_kind,
        key_version: this.#deps.cipher.keyVersion,
      },
    });
    return {
      kind: d.credential_kind,
      ...(d.username ? { username: d.username } : {}),
      secret,
    };
  }

  /** Imports the bootstrap datasource file as the system actor; idempotent by name. */
  async importBootstrap(
    system: { id: string },
    file: string,
    env: Record<string, string>,
  ): Promise<BootstrapOutcome> {
    // The file is the operator's own configuration: it carries instance authority.
    const principal = systemPrincipal(system);
    const outcome = await importBootstrapFile(this.#deps, principal, file, env, this.#logger);
    if (outcome.created.length > 0 || outcome.skipped.length > 0) {
      this.#logger.info("bootstrap datasource file imported", { file, ...outcome });
    }
    return outcome;
  }
}
