/**
 * Reading a datasource definition from a request body: every field's grammar, the credential forms
 * (the `credential` object or the legacy username/password pair), the include-schemas normalisation
 * and the two property namespaces. Pure: what needs the store or the caller (name uniqueness,
 * binding, secrets kept on update) is the registry's.
 */
import { AppError } from "../errors/mod.ts";
import { isSecretKey } from "../lib/redact.ts";
import {
  CREDENTIAL_KINDS,
  type CredentialInput,
  type CredentialKind,
  DATASOURCE_NAME_RE,
  type DatasourceProperties,
  type Dialect,
  DIALECTS,
  DISPLAY_NAME_MAX,
  INCLUDE_SCHEMAS_MAX,
  JDBC_URL_MAX,
  SCHEMA_IDENTIFIER_RE,
  SECRET_MAX,
  USERNAME_MAX,
} from "./types.ts";

/** A parsed create or update body. `undefined` means the field was absent. */
export interface DefinitionInput {
  name: string;
  display_name?: string;
  dialect: Dialect;
  jdbc_url: string;
  /** null: no credential form at all in the body. */
  credential: CredentialInput | null;
  include_schemas: string[];
  properties: DatasourceProperties;
  global?: boolean;
  workspace?: string | null;
  readonly?: boolean;
}

/**
 * The refusal of one malformed field that has no code of its own
 * (docs/decisions.md#fields-without-a-code-of-their-own).
 */
export function invalidField(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}

/** `datasource.validation.properties_invalid` naming the field and why. */
export function propertiesInvalid(
  field: string,
  reason: string,
  extra: Record<string, unknown> = {},
): AppError {
  return new AppError("datasource.validation.properties_invalid", { field, reason, ...extra });
}

/** A datasource name, or the grammar refusal. */
export function parseName(value: unknown): string {
  if (typeof value !== "string" || !DATASOURCE_NAME_RE.test(value)) {
    throw invalidField(
      "name",
      "must be 1 to 63 characters of a-z, 0-9, underscore and hyphen, starting with a letter or digit",
    );
  }
  return value;
}

function text(field: string, value: unknown, max: number): string {
  if (typeof value !== "string") throw invalidField(field, "must be a string");
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalidField(field, "must not be empty");
  if (trimmed.length > max) throw invalidField(field, `must be at most ${max} characters`);
  return trimmed;
}

function optionalBool(field: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalidField(field, "must be true or false");
  return value;
}

function parseDialect(value: unknown): Dialect {
  if (typeof value !== "string" || !(DIALECTS as readonly string[]).includes(value)) {
    throw invalidField("dialect", "is not a supported dialect");
  }
  return value as Dialect;
}

/** Shape only: the forms and driver options of each dialect are the connectors' `parseJdbcUrl`. */
function parseJdbcUrlField(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) {
    throw invalidField("jdbc_url", "must be a non-empty string");
  }
  if (value.length > JDBC_URL_MAX) {
    throw invalidField("jdbc_url", `must be at most ${JDBC_URL_MAX} characters`);
  }
  return value;
}

function optionalText(field: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw invalidField(field, "must be a string");
  if (value.length > max) throw invalidField(field, `must be at most ${max} characters`);
  return value.length === 0 ? null : value;
}

/** The credential object or the legacy pair; null when the body carries neither. */
function parseCredential(body: Record<string, unknown>): CredentialInput | null {
  const legacy = body.username !== undefined || body.password !== undefined;
  if (body.credential !== undefined && body.credential !== null) {
    if (legacy) {
      throw propertiesInvalid(
        "credential",
        "send either credential or the legacy username/password pair, not both",
      );
    }
    const c = body.credential;
    if (typeof c !== "object" || Array.isArray(c)) {
      throw propertiesInvalid("credential", "must be an object {kind, username?, secret?}");
    }
    const cred = c as Record<string, unknown>;
    if (
      typeof cred.kind !== "string" || !(CREDENTIAL_KINDS as readonly string[]).includes(cred.kind)
    ) {
      throw propertiesInvalid("credential.kind", "is not a credential kind", {
        accepted: [...CREDENTIAL_KINDS],
      });
    }
    const unknown = Object.keys(cred).filter((k) => !["kind", "username", "secret"].includes(k));
    if (unknown.length > 0) {
      throw propertiesInvalid("credential", `unknown member ${unknown[0].slice(0, 64)}`);
    }
    return {
      kind: cred.kind as CredentialKind,
      username: optionalText("credential.username", cred.username, USERNAME_MAX),
      usernameOmitted: cred.username === undefined,
      ...secretOf("credential.secret", cred.secret),
    };
  }
  if (!legacy) return null;
  return {
    kind: "password",
    username: optionalText("username", body.username, USERNAME_MAX),
    usernameOmitted: body.username === undefined,
    ...secretOf("password", body.password),
  };
}

/** An absent, null or empty secret counts as not sent. */
function secretOf(field: string, value: unknown): { secret?: string } {
  if (value === undefined || value === null || value === "") return {};
  if (typeof value !== "string") throw invalidField(field, "must be a string");
  if (value.length > SECRET_MAX) {
    throw invalidField(field, `must be at most ${SECRET_MAX} characters`);
  }
  return { secret: value };
}

/**
 * Trimmed, lowercased, blanks dropped, deduplicated in first-seen order; wildcards, quoted and
 * qualified names refused. Absent means none.
 */
export function normaliseIncludeSchemas(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const field = "introspection_include_schemas";
  if (!Array.isArray(value)) throw propertiesInvalid(field, "must be an array of schema names");
  if (value.length > INCLUDE_SCHEMAS_MAX) {
    throw propertiesInvalid(field, `at most ${INCLUDE_SCHEMAS_MAX} entries`);
  }
  const out: string[] = [];
  for (const entry of value) {
    if (typeof entry !== "string") throw propertiesInvalid(field, "entries must be strings");
    const name = entry.trim().toLowerCase();
    if (name === "") continue;
    if (!SCHEMA_IDENTIFIER_RE.test(name)) {
      throw propertiesInvalid(
        field,
        "entries are exact schema identifiers (letters, digits, _, $, #): no wildcards, quotes or qualified names",
        { entry: entry.slice(0, 130) },
      );
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

const JDBC_KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** Credentials travel in `credential` only, where they are sealed; never as driver properties. */
const CREDENTIAL_PROPERTY_RE = /^(user|username)$/i;

/**
 * The two reserved namespaces, shaped; which keys and values a dialect accepts is the pool build's
 * (`validateProperties` of the connectors), run at save.
 */
export function parseProperties(value: unknown): DatasourceProperties {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw propertiesInvalid("properties", "must be an object with hikari and jdbc members");
  }
  const out: DatasourceProperties = {};
  for (const [ns, members] of Object.entries(value)) {
    if (ns !== "hikari" && ns !== "jdbc") {
      throw propertiesInvalid(
        `properties.${ns.slice(0, 64)}`,
        "only the namespaces hikari and jdbc exist",
      );
    }
    if (members === null || members === undefined) continue;
    if (typeof members !== "object" || Array.isArray(members)) {
      throw propertiesInvalid(`properties.${ns}`, "must be an object");
    }
    const entries = Object.entries(members as Record<string, unknown>);
    if (entries.length > 64) throw propertiesInvalid(`properties.${ns}`, "at most 64 keys");
    if (ns === "hikari") {
      const hikari: Record<string, number> = {};
      for (const [k, v] of entries) {
        if (typeof v !== "number" || !Number.isSafeInteger(v)) {
          throw propertiesInvalid(`properties.hikari.${k.slice(0, 64)}`, "must be an integer");
        }
        hikari[k] = v;
      }
      out.hikari = hikari;
    } else {
      const jdbc: Record<string, string | number | boolean> = {};
      for (const [k, v] of entries) {
        const field = `properties.jdbc.${k.slice(0, 64)}`;
        if (!JDBC_KEY_RE.test(k)) throw propertiesInvalid(field, "is not a property name");
        if (CREDENTIAL_PROPERTY_RE.test(k) || isSecretKey(k)) {
          throw propertiesInvalid(field, "credentials go in credential, where they are encrypted");
        }
        if (
          !(typeof v === "string" && v.length <= 1024) && typeof v !== "boolean" &&
          !(typeof v === "number" && Number.isFinite(v))
        ) {
          throw propertiesInvalid(field, "must be a string (≤1024), number or boolean");
        }
        jdbc[k] = v as string | number | boolean;
      }
      out.jdbc = jdbc;
    }
  }
  return out;
}

/**
 * Parses a create (`pathName` undefined) or update body. On update the name comes from the path,
 * and a body naming another is refused: names are immutable.
 */
export function parseDefinition(body: unknown, pathName?: string): DefinitionInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidField("body", "must be a JSON object");
  }
  const b = body as Record<string, unknown>;
  let name: string;
  if (pathName === undefined) {
    name = parseName(b.name);
  } else {
    name = pathName;
    if (b.name !== undefined && b.name !== pathName) {
      throw invalidField("name", "is immutable");
    }
  }
  const dialect = parseDialect(b.dialect);
  const workspace = b.workspace === undefined
    ? undefined
    : b.workspace === null
    ? null
    : text("workspace", b.workspace, 63);
  return {
    name,
    display_name: b.display_name === undefined || b.display_name === null
      ? undefined
      : text("display_name", b.display_name, DISPLAY_NAME_MAX),
    dialect,
    jdbc_url: parseJdbcUrlField(b.jdbc_url),
    credential: parseCredential(b),
    include_schemas: normaliseIncludeSchemas(b.introspection_include_schemas),
    properties: parseProperties(b.properties),
    global: optionalBool("global", b.global),
    workspace,
    readonly: optionalBool("readonly", b.readonly),
  };
}
