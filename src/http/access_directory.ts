/**
 * The access pipeline's per-request lookups, cached for the liveness TTL (spec 1 §5.6: sessions
 * and keys see a deactivation or a lost membership within about a minute). Local changes call
 * `forgetUser` / `forgetWorkspaces` so this instance sees them at once.
 */
import { findUserById, type WorkspaceContext } from "../identity/mod.ts";
import { TtlCache } from "../lib/ttl_cache.ts";
import type { Db } from "../store/mod.ts";
import { WORKSPACE_NAME_RE, type WorkspaceService } from "../workspaces/mod.ts";
import type { AccessDirectory } from "./access_deps.ts";

type Who = { userId: string; isSuperAdmin: boolean };

export class CachedAccessDirectory implements AccessDirectory {
  readonly #db: Db;
  readonly #workspaces: WorkspaceService;
  readonly #users: TtlCache<string, Awaited<ReturnType<AccessDirectory["sessionUser"]>>>;
  readonly #contexts: TtlCache<string, WorkspaceContext | null>;
  readonly #pinned: TtlCache<string, Awaited<ReturnType<AccessDirectory["resolvePinned"]>>>;
  readonly #counts: TtlCache<string, number>;

  constructor(db: Db, workspaces: WorkspaceService, ttlSeconds: number) {
    this.#db = db;
    this.#workspaces = workspaces;
    const ttl = ttlSeconds * 1000;
    this.#users = new TtlCache(ttl);
    this.#contexts = new TtlCache(ttl);
    this.#pinned = new TtlCache(ttl);
    this.#counts = new TtlCache(ttl);
  }

  sessionUser(userId: string) {
    return this.#users.get(userId, async () => {
      const u = await findUserById(this.#db, userId);
      if (!u || !u.is_active || u.provider === "system") return null;
      return {
        email: u.email,
        displayName: u.display_name,
        provider: u.provider,
        isAdmin: u.is_admin,
        mustChangePassword: u.must_change_password,
      };
    });
  }

  resolveByName(user: Who, name: string) {
    if (!WORKSPACE_NAME_RE.test(name)) return Promise.resolve(null);
    return this.#contexts.get(
      `${user.userId}|${user.isSuperAdmin}|n:${name}`,
      () => this.#workspaces.resolveForUser(user, name),
    );
  }

  resolvePinned(user: Who, workspaceId: string) {
    return this.#pinned.get(
      `${user.userId}|${user.isSuperAdmin}|${workspaceId}`,
      () => this.#workspaces.resolveById(user, workspaceId),
    );
  }

  defaultFor(user: Who) {
    return this.#contexts.get(
      `${user.userId}|${user.isSuperAdmin}|default`,
      () => this.#workspaces.defaultForUser(user),
    );
  }

  async rememberLastUsed(userId: string, workspaceId: string) {
    await this.#workspaces.rememberLastUsed(userId, workspaceId);
    this.#contexts.deleteWhere((k) => k.startsWith(`${userId}|`) && k.endsWith("|default"));
  }

  membershipCount(userId: string) {
    return this.#counts.get(userId, () => this.#workspaces.membershipCount(userId));
  }

  async describe(name: string) {
    const ws = await this.#workspaces.get(name);
    if (!ws || ws.deleted_at) return null;
    return {
      id: ws.id,
      name: ws.name,
      state: ws.deactivated_at ? "deactivated" as const : "active" as const,
    };
  }

  forgetUser(userId: string) {
    this.#users.delete(userId);
    this.#contexts.deleteWhere((k) => k.startsWith(`${userId}|`));
    this.#pinned.deleteWhere((k) => k.startsWith(`${userId}|`));
    this.#counts.delete(userId);
  }

  forgetWorkspaces() {
    this.#contexts.clear();
    this.#pinned.clear();
    this.#counts.clear();
  }
}
