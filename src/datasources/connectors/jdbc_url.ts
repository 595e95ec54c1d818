/**
 * `jdbc_url` forms (docs/datasources.md#datasource-connectors), parsed into a typed target per dialect, and the small
 * allowlist of driver properties (`properties.jdbc` or the URL's query) each dialect maps to its
 * driver. Everything else is refused: drivers have options that load local files, open sockets
 * through arbitrary classes or run statements at connect, and a datasource definition written by
 * an author must not reach any of them.
 */
import { AppError } from "../../errors/mod.ts";
import type { Dialect } from "./types.ts";

export type DriverOptions = Record<string, string>;

export type JdbcTarget =
  | { dialect: "POSTGRES"; host: string; port: number; database: string; options: DriverOptions }
  | {
    dialect: "MYSQL";
    /** Which URL prefix was used; the mysql2 driver speaks to both servers. */
    flavor: "mysql" | "mariadb";
    host: string;
    port: number;
    database: string | null;
    options: DriverOptions;
  }
  /** `path` is an absolute file path or `:memory:`. */
  | { dialect: "SQLITE"; path: string; options: DriverOptions }
  /** `path` null is an in-memory database. */
  | { dialect: "DUCKDB"; path: string | null; options: DriverOptions }
  | {
    dialect: "LAKE";
    location: { scheme: "s3"; bucket: string; prefix: string } | { scheme: "file"; path: string };
    options: DriverOptions;
  };

type Check = (value: string) => string | null;

const oneOf = (...allowed: string[]): Check => (v) =>
  allowed.includes(v) ? null : `must be one of ${allowed.join(", ")}`;
const intIn = (min: number, max: number): Check => (v) =>
  /^\d{1,9}$/.test(v) && Number(v) >= min && Number(v) <= max
    ? null
    : `must be an integer from ${min} to ${max}`;
const pattern = (re: RegExp, what: string): Check => (v) => re.test(v) ? null : `must be ${what}`;
const BOOL = oneOf("true", "false");
const IDENT = pattern(/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/, "a plain identifier");

/**
 * The driver properties each dialect accepts, and what a value must look like. Keys use the
 * names of the JDBC driver an author already knows (pgjdbc, Connector/J, sqlite-jdbc, duckdb).
 */
export const ALLOWED_PROPERTIES: Record<Dialect, Record<string, Check>> = {
  POSTGRES: {
    sslmode: oneOf("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    ssl: BOOL,
    applicationName: pattern(/^[A-Za-z0-9 _.-]{1,63}$/, "1-63 letters, digits, space, _ . -"),
    currentSchema: IDENT,
    connectTimeout: intIn(1, 600),
  },
  MYSQL: {
    ssl: BOOL,
    useSSL: BOOL,
    sslMode: oneOf("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"),
    connectTimeout: intIn(250, 600_000),
    characterEncoding: oneOf("utf8", "utf8mb4", "UTF-8"),
  },
  SQLITE: {
    busy_timeout: intIn(0, 600_000),
    readonly: BOOL,
  },
  DUCKDB: {
    access_mode: oneOf("AUTOMATIC", "READ_ONLY", "READ_WRITE"),
    threads: intIn(1, 64),
  },
  LAKE: {
    region: pattern(/^[a-z0-9-]{1,32}$/, "an object-storage region such as eu-west-1"),
    endpoint: pattern(
      /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:\d{1,5})?$/,
      "a host name with an optional port",
    ),
    url_style: oneOf("path", "vhost"),
    use_ssl: BOOL,
  },
};

function invalid(field: string, reason: string): AppError {
  return new AppError("datasource.validation.properties_invalid", { field, reason });
}

/** Checks driver properties against the dialect's allowlist; returns them as strings. */
export function validateDriverOptions(
  dialect: Dialect,
  options: Record<string, unknown>,
  field = "properties.jdbc",
): DriverOptions {
  const allowed = ALLOWED_PROPERTIES[dialect];
  const out: DriverOptions = {};
  for (const [key, raw] of Object.entries(options)) {
    const check = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
    if (!check) {
      throw invalid(
        `${field}.${key}`,
        `unknown driver property; ${dialect} accepts ${Object.keys(allowed).join(", ")}`,
      );
    }
    if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean") {
      throw invalid(`${field}.${key}`, "must be a string, number or boolean");
    }
    const value = String(raw);
    const problem = check(value);
    if (problem) throw invalid(`${field}.${key}`, problem);
    out[key] = value;
  }
  return out;
}

const PREFIXES: Record<Dialect, string[]> = {
  POSTGRES: ["jdbc:postgresql:"],
  MYSQL: ["jdbc:mysql:", "jdbc:mariadb:"],
  SQLITE: ["jdbc:sqlite:"],
  DUCKDB: ["jdbc:duckdb:"],
  LAKE: ["jdbc:lake:"],
};

const HOST =
  /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV6 = /^\[[0-9A-Fa-f:.]{2,45}\]$/;
const DATABASE = /^[A-Za-z0-9_$][A-Za-z0-9_$.-]{0,62}$/;
// Anything a shell, a SQL literal or a driver's own URL parser could read a second way.
// deno-lint-ignore no-control-regex
const HOSTILE = /[\s'"`\\;<>{}|^\u0000-\u001f\u007f]/;

/**
 * Parses `url` for `dialect`; throws `datasource.validation.properties_invalid` with
 * `field: "jdbc_url"` and a reason for anything that is not one of the documented forms.
 */
export function parseJdbcUrl(dialect: Dialect, url: string): JdbcTarget {
  if (typeof url !== "string" || url.length === 0 || url.length > 2048) {
    throw invalid("jdbc_url", "must be a non-empty string of at most 2048 characters");
  }
  const prefix = PREFIXES[dialect]?.find((p) => url.startsWith(p));
  if (!prefix) {
    throw invalid(
      "jdbc_url",
      `a ${dialect} datasource needs a URL starting with ${PREFIXES[dialect]?.join(" or ")}`,
    );
  }
  const rest = url.slice(prefix.length);
  switch (dialect) {
    case "POSTGRES":
    case "MYSQL": {
      const server = parseServer(dialect, rest);
      if (dialect === "POSTGRES") {
        if (!server.database) throw invalid("jdbc_url", "the database name is missing");
        return { dialect, ...server, port: server.port ?? 5432, database: server.database };
      }
      return {
        dialect,
        flavor: prefix === "jdbc:mariadb:" ? "mariadb" : "mysql",
        ...server,
        port: server.port ?? 3306,
      };
    }
    case "SQLITE": {
      const { path, options } = splitQuery(dialect, rest);
      if (path === ":memory:") return { dialect, path, options };
      return { dialect, path: checkPath(path), options };
    }
    case "DUCKDB": {
      const { path, options } = splitQuery(dialect, rest);
      return { dialect, path: path === "" ? null : checkPath(path), options };
    }
    case "LAKE":
      return parseLake(rest);
  }
}

function splitQuery(dialect: Dialect, rest: string): { path: string; options: DriverOptions } {
  const q = rest.indexOf("?");
  if (q === -1) return { path: rest, options: {} };
  return { path: rest.slice(0, q), options: parseQuery(dialect, rest.slice(q + 1)) };
}

function parseQuery(dialect: Dialect, query: string): DriverOptions {
  if (query === "") return {};
  const raw: Record<string, string> = {};
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    const key = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? "" : pair.slice(eq + 1);
    if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(key)) {
      throw invalid("jdbc_url", `the URL option ${JSON.stringify(key.slice(0, 64))} is malformed`);
    }
    if (Object.hasOwn(raw, key)) throw invalid("jdbc_url", `the URL option ${key} is repeated`);
    // Percent-encoding would let a value smuggle the separators checked above.
    if (value.includes("%")) throw invalid("jdbc_url", `the URL option ${key} is encoded`);
    raw[key] = value;
  }
  return validateDriverOptions(dialect, raw, "jdbc_url");
}

function parseServer(dialect: Dialect, rest: string) {
  if (!rest.startsWith("//")) throw invalid("jdbc_url", "expected //host[:port]/database");
  if (HOSTILE.test(rest)) {
    throw invalid(
      "jdbc_url",
      "the URL holds whitespace, quotes, ';' or other characters no form uses",
    );
  }
  const { path: authorityAndPath, options } = splitQuery(dialect, rest.slice(2));
  const slash = authorityAndPath.indexOf("/");
  const authority = slash === -1 ? authorityAndPath : authorityAndPath.slice(0, slash);
  const database = slash === -1 ? "" : authorityAndPath.slice(slash + 1);
  if (authority.includes("@")) {
    throw invalid("jdbc_url", "credentials do not belong in the URL; send them as credential");
  }
  if (authority.includes(",")) throw invalid("jdbc_url", "only one host is supported");
  let host = authority;
  let port: number | undefined;
  const portMatch = /^(.*):(\d{1,5})$/.exec(authority);
  if (portMatch && !IPV6.test(authority)) {
    host = portMatch[1];
    port = Number(portMatch[2]);
    if (port < 1 || port > 65535) throw invalid("jdbc_url", "the port must be 1 to 65535");
  } else if (authority.includes(":") && !IPV6.test(authority)) {
    throw invalid("jdbc_url", "the port must be a number");
  }
  if (!(HOST.test(host) || IPV6.test(host)) || host.length > 253) {
    throw invalid("jdbc_url", "the host is not a valid host name or address");
  }
  if (database !== "" && !DATABASE.test(database)) {
    throw invalid("jdbc_url", "the database name must be letters, digits, _ $ . - (at most 63)");
  }
  return {
    host: IPV6.test(host) ? host.slice(1, -1) : host,
    port,
    database: database === "" ? null : database,
    options,
  };
}

function checkPath(path: string): string {
  if (!path.startsWith("/")) throw invalid("jdbc_url", "the file path must be absolute");
  // deno-lint-ignore no-control-regex
  if (/['"`\\\u0000-\u001f\u007f]/.test(path)) {
    throw invalid("jdbc_url", "the file path holds quotes, backslashes or control characters");
  }
  if (path.split("/").some((segment) => segment === "..")) {
    throw invalid("jdbc_url", "the file path must not contain .. segments");
  }
  return path;
}

function parseLake(rest: string): JdbcTarget {
  if (HOSTILE.test(rest)) {
    throw invalid("jdbc_url", "the location holds whitespace, quotes or control characters");
  }
  const { path: location, options } = splitQuery("LAKE", rest);
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/[A-Za-z0-9!_.*()\/=-]*)?$/.exec(
    location,
  );
  if (s3) {
    const prefix = (s3[2] ?? "").replace(/^\/+/, "");
    if (prefix.split("/").includes("..")) throw invalid("jdbc_url", "no .. segments");
    return { dialect: "LAKE", location: { scheme: "s3", bucket: s3[1], prefix }, options };
  }
  if (location.startsWith("file://")) {
    return {
      dialect: "LAKE",
      location: { scheme: "file", path: checkPath(location.slice("file://".length)) },
      options,
    };
  }
  throw invalid("jdbc_url", "a lake location is s3://bucket/prefix or file:///dir");
}
