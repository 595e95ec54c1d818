/**
 * API key issuance (docs/access.md#api-keys): the request body's grammar, who may mint which kind,
 * expiry parsing, and the insert with its audit row. The plaintext key exists only in the answer.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { hashSecret } from "../lib/argon2.ts";
import { randomBase32 } from "../lib/base32.ts";
import { type Db, isUniqueViolation } from "../store/mod.ts";
import {
  type ApiKeyBinding,
  EXPIRY_PRESETS,
  type IssueCapability,
  type IssuedKey,
  type Issuer,
  KEY_ID_LENGTH,
  KEY_KINDS,
  KEY_PREFIX,
  KEY_SECRET_LENGTH,
} from "./api_key_types.ts";
import { insertApiKey } from "./api_keys_repo.ts";
import { expandScopes, type KeyKind, rolesHeld, type Scope, SCOPES } from "./types.ts";

const NAME_MAX = 200;
const BINDINGS_MAX = 100;
const BINDING_PATH_MAX = 500;
const BINDING_SEGMENT = /^(?:[a-z0-9][a-z0-9_.-]{0,63}|\{[a-z_][a-z0-9_]*\})$/;
const DAY_MS = 86_400_000;

const invalid = (field: string, reason: string) =>
  new AppError("pipeline.execution.invalid_parameter_type", { field, reason });

/** What the issuer may and did ask for, minus the secret (which `mintKey` draws). */
export interface IssuePlan {
  name: string;
  kind: KeyKind;
  scopes: Scope[];
  bindings: ApiKeyBinding[];
  expiresAt: string | null;
  workspaceId: string;
  createdAt: string;
}

/**
 * Applies the issuance rules to a `POST /auth/api-keys` body: its shape, the kind's allowed fields,
 * and whether the issuer may mint that kind with those scopes. Throws the refusal; nothing is
 * written.
 */
export function planIssue(
  issuer: Issuer,
  input: unknown,
  capability: IssueCapability,
  defaults: { scopes: Scope[]; now: () => number },
): IssuePlan {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalid("body", "must be a JSON object");
  }
  const body = input as Record<string, unknown>;
  const name = parseName(body.name);
  const kind = parseKind(body.kind);
  const scopesGiven = body.scopes !== undefined && body.scopes !== null;
  const bindingsGiven = body.bindings !== undefined && body.bindings !== null;
  const emptyList = (v: unknown) => Array.isArray(v) && v.length === 0;
  // Kind-shape refusals: an empty list carries no authority, so it counts as absent.
  if (kind !== "user" && scopesGiven && !emptyList(body.scopes)) {
    throw new AppError("endpoint.key_kind_refused", { reason: "scopes_not_allowed", kind });
  }
  if (kind !== "endpoint" && bindingsGiven && !emptyList(body.bindings)) {
    throw new AppError("endpoint.key_kind_refused", { reason: "bindings_not_allowed", kind });
  }
  if (issuer.authMethod === "API_KEY" && (issuer.keyKind ?? "user") !== "user") {
    throw new AppError("endpoint.key_kind_refused", {
      reason: "issuer_kind",
      kind: issuer.keyKind,
    });
  }
  const scopes = kind === "user"
    ? (scopesGiven ? parseScopes(body.scopes) : [...defaults.scopes])
    : [];
  const bindings = kind === "endpoint" && bindingsGiven ? parseBindings(body.bindings) : [];
  const now = defaults.now();
  const expiresAt = parseExpiry(body.expires_in, body.expires_at, now);

  // Who may mint.
  const isKey = issuer.authMethod === "API_KEY";
  const held = rolesHeld(capability.flags, capability.isSuperAdmin);
  if (kind === "user") {
    if (!held.includes("author")) {
      throw new AppError("auth.role_required", { required: "author", held });
    }
    // Capability at issue: a key's own scopes; a session's membership, which is `author` here
    // because issuance already demanded it (a viewer's would be `execute`).
    const cap = expandScopes(isKey ? issuer.scopes : ["author"]);
    const missing = expandScopes(scopes).filter((s) => !cap.includes(s));
    if (missing.length > 0) {
      throw new AppError("auth.scope.insufficient", { required: missing, held: cap });
    }
  } else if (kind === "server") {
    // A key never holds `admin`, so only a super admin's session mints server keys.
    if (!capability.isSuperAdmin || isKey) {
      throw new AppError("auth.scope.insufficient", {
        required: "admin",
        held: isKey ? expandScopes(issuer.scopes) : [],
      });
    }
  }

  const workspaceId = isKey
    ? (issuer.pinnedWorkspaceId ?? issuer.activeWorkspaceId)
    : issuer.activeWorkspaceId;
  const createdAt = new Date(now).toISOString();
  return { name, kind, scopes, bindings, expiresAt, workspaceId, createdAt };
}

/** Draws a key, stores its hash and writes `auth.api_key.created` in one transaction. */
export async function mintKey(db: Db, issuer: Issuer, plan: IssuePlan): Promise<IssuedKey> {
  const { name, kind, scopes, bindings, expiresAt, workspaceId, createdAt } = plan;
  const isKey = issuer.authMethod === "API_KEY";
  for (let attempt = 1;; attempt++) {
    const keyId = randomBase32(KEY_ID_LENGTH);
    const key = `${KEY_PREFIX}${keyId}.${randomBase32(KEY_SECRET_LENGTH)}`;
    const keyHash = await hashSecret(key);
    try {
      await db.transaction(async (tx) => {
        await insertApiKey(tx, {
          id: keyId,
          user_id: issuer.userId,
          workspace_id: workspaceId,
          name,
          kind,
          scopes,
          bindings,
          key_hash: keyHash,
          created_at: createdAt,
          expires_at: expiresAt,
        });
        await recordAudit(tx, {
          event: "auth.api_key.created",
          by: issuer,
          workspaceId,
          details: {
            key_id: KEY_PREFIX + keyId,
            name,
            kind,
            scopes,
            bindings: bindings.length,
            expires_at: expiresAt,
            ...(isKey ? { issuer_key_id: issuer.keyId } : {}),
          },
        });
      });
    } catch (e) {
      if (isUniqueViolation(e) && attempt < 3) continue; // a 60-bit id collided
      throw e;
    }
    return {
      id: KEY_PREFIX + keyId,
      name,
      kind,
      scopes,
      bindings,
      key,
      created_at: createdAt,
      expires_at: expiresAt,
    };
  }
}

// ------------------------------------------------------------------ input parsing

function parseName(value: unknown): string {
  const reason = `must be a non-empty string of at most ${NAME_MAX} characters`;
  if (typeof value !== "string") throw invalid("name", reason);
  const name = value.trim();
  if (name.length === 0 || name.length > NAME_MAX) throw invalid("name", reason);
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw invalid("name", "must not contain control characters");
  }
  return name;
}

function parseKind(value: unknown): KeyKind {
  if (value === undefined || value === null) return "user";
  if (typeof value === "string" && (KEY_KINDS as readonly string[]).includes(value)) {
    return value as KeyKind;
  }
  throw new AppError("endpoint.key_kind_refused", {
    reason: "unknown_kind",
    kind: typeof value === "string" ? value.slice(0, 100) : null,
    supported: [...KEY_KINDS],
  });
}

/** Requested scopes, deduplicated in canonical order (never expanded). */
function parseScopes(value: unknown): Scope[] {
  if (!Array.isArray(value) || value.some((s) => typeof s !== "string")) {
    throw invalid("scopes", "must be an array of scope names");
  }
  if (value.includes("admin")) throw new AppError("auth.key_scope_unavailable", {});
  const unknown = value.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw invalid(
      "scopes",
      `unknown scope ${String(unknown[0]).slice(0, 50)}; use read, execute, author`,
    );
  }
  if (value.length === 0) throw invalid("scopes", "must name at least one scope");
  return SCOPES.filter((s) => value.includes(s));
}

/**
 * Endpoint-key bindings, checked for shape only: up to 100 objects `{path}`, each path a node of the
 * endpoint tree — `/` (the root) or 1 to 10 segments (literal or `{variable}`, the endpoint path
 * grammar), optionally written under `/api/x` — at most 500 characters. Stored as given, deduplicated.
 */
function parseBindings(value: unknown): ApiKeyBinding[] {
  const shape = "must be an array of at most 100 objects {path}, each a node of the endpoint tree";
  if (!Array.isArray(value) || value.length > BINDINGS_MAX) throw invalid("bindings", shape);
  const out: ApiKeyBinding[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw invalid("bindings", shape);
    }
    const keys = Object.keys(item);
    const path = (item as Record<string, unknown>).path;
    if (keys.some((k) => k !== "path") || typeof path !== "string" || !isBindingPath(path)) {
      throw invalid("bindings", shape);
    }
    if (!out.some((b) => b.path === path)) out.push({ path });
  }
  return out;
}

function isBindingPath(path: string): boolean {
  if (path.length === 0 || path.length > BINDING_PATH_MAX || !path.startsWith("/")) return false;
  let rest = path;
  if (rest === "/api/x" || rest.startsWith("/api/x/")) rest = rest.slice("/api/x".length);
  if (rest === "" || rest === "/") return true;
  const segments = rest.slice(1).split("/");
  return segments.length <= 10 && segments.every((s) => BINDING_SEGMENT.test(s));
}

// ------------------------------------------------------------------ expiry

/**
 * `expires_in` preset (default `never`) and `expires_at` (ISO 8601) to a stored ISO timestamp or
 * null. `1y` is one calendar year (UTC). A fixed preset together with `expires_at` is ambiguous and
 * refused as a malformed `expires_at`.
 */
export function parseExpiry(preset: unknown, at: unknown, now: number): string | null {
  const fail = (reason: string) => new AppError("auth.api_key.expiry_invalid", { reason });
  const hasAt = at !== undefined && at !== null;
  let mode: string;
  if (preset === undefined || preset === null) mode = hasAt ? "custom" : "never";
  else if (typeof preset === "string" && (EXPIRY_PRESETS as readonly string[]).includes(preset)) {
    mode = preset;
  } else throw fail("unknown_preset");
  if (mode === "custom") {
    if (!hasAt) throw fail("custom_without_date");
    const ms = parseIsoTimestamp(at);
    if (ms === null) throw fail("unparseable");
    if (ms <= now) throw fail("in_past");
    return new Date(ms).toISOString();
  }
  if (hasAt) {
    throw invalid("expires_at", `cannot be combined with expires_in ${mode}; use custom`);
  }
  if (mode === "never") return null;
  if (mode === "1y") {
    const d = new Date(now);
    d.setUTCFullYear(d.getUTCFullYear() + 1);
    return d.toISOString();
  }
  return new Date(now + Number.parseInt(mode, 10) * DAY_MS).toISOString();
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Epoch ms of an ISO 8601 date or date-time, or null. Calendar fields are checked (no Feb 30); a
 * date-time without an offset and a bare date (its midnight) are read as UTC.
 */
export function parseIsoTimestamp(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = ISO_8601.exec(value.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0));
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  if (d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return null;
  let offsetMin = 0;
  const zone = m[8];
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || 0);
    if (oh > 23 || om > 59) return null;
    offsetMin = sign * (oh * 60 + om);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, s, ms);
  return utc.getTime() - offsetMin * 60_000;
}
