/**
 * The access pipeline's per-request lookups, cached for the liveness TTL (docs/access.md#sessions:
 * sessions and keys see a deactivation or a lost membership within about a minute). Local changes
 * call `forgetUser` / `forgetWorkspaces` so this instance sees them at once, and every instance
 * that follows the shared store moments later (the TTL remains the bound for a lost message). Every
 * front end's access steps read users and workspaces through it, so it lives with the workspace
 * resolution it caches.
 */
import { findUserById, type WorkspaceContext } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import { TtlCache } from "../lib/ttl_cache.ts";
import { Broadcast, type SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import type { WorkspaceService } from "./service.ts";
import { WORKSPACE_NAME_RE } from "./types.ts";

/** Cached per-request facts: user liveness, workspace resolution, membership counts. */
export interface AccessDirectory {
  /** The live user behind a session, or null when gone or inactive. */
  sessionUser(userId: string): Promise<
    {
      email: string;
      displayName: string;
      provider: string;
      isAdmin: boolean;
      mustChangePassword: boolean;
    } | null
  >;
  /** A workspace by name for this user: null for unknown, deleted, deactivated or non-member. */
  resolveByName(
    user: { userId: string; isSuperAdmin: boolean },
    name: string,
  ): Promise<WorkspaceContext | null>;
  /** A key's pinned workspace with its issuer's flags (flags null when no longer a member). */
  resolvePinned(
    user: { userId: string; isSuperAdmin: boolean },
    workspaceId: string,
  ): Promise<{ state: "active" | "deactivated" | "missing"; context: WorkspaceContext | null }>;
  /** Last-used, else first live membership; null when none. */
  defaultFor(user: { userId: string; isSuperAdmin: boolean }): Promise<WorkspaceContext | null>;
  rememberLastUsed(userId: string, workspaceId: string): Promise<void>;
  /** Any workspace by name regardless of membership; null when unknown or deleted. */
  describe(
    name: string,
  ): Promise<{ id: string; name: string; state: "active" | "deactivated" } | null>;
  membershipCount(userId: string): Promise<number>;
  /** Local changes take effect at once on this instance (others follow within the TTL). */
  forgetUser(userId: string): void;
  forgetWorkspaces(): void;
}

type Who = { userId: string; isSuperAdmin: boolean };

export class CachedAccessDirectory implements AccessDirectory {
  readonly #db: Db;
  readonly #workspaces: WorkspaceService;
  readonly #users: TtlCache<string, Awaited<ReturnType<AccessDirectory["sessionUser"]>>>;
  readonly #contexts: TtlCache<string, WorkspaceContext | null>;
  readonly #pinned: TtlCache<string, Awaited<ReturnType<AccessDirectory["resolvePinned"]>>>;
  readonly #counts: TtlCache<string, number>;
  /** Forgets, applied here at once and on every instance that follows the shared store. */
  readonly #forget = new Broadcast<{ user?: string; workspaces?: true }>(
    "access:forget",
    (change) => {
      if (change.user) {
        this.#users.delete(change.user);
        this.#contexts.deleteWhere((k) => k.startsWith(`${change.user}|`));
        this.#pinned.deleteWhere((k) => k.startsWith(`${change.user}|`));
        this.#counts.delete(change.user);
      }
      if (change.workspaces) {
        this.#contexts.clear();
        this.#pinned.clear();
        this.#counts.clear();
      }
    },
  );

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
    this.#forget.send({ user: userId });
  }

  forgetWorkspaces() {
    this.#forget.send({ workspaces: true });
  }

  /** Follows the forgets other instances send, so their changes show here before the TTL. */
  follow(shared: SharedStore, logger?: Logger): Promise<void> {
    return this.#forget.open(shared, logger);
  }

  unfollow(): Promise<void> {
    return this.#forget.close();
  }
}
