/**
 * The lake-table grammar (docs/datasources.md#lake-datasources): namespace, name, format, location
 * and partition column, plus the lake root a LAKE datasource's `jdbc_url` declares. Every refusal
 * carries its documented code and a `reason` a person can act on.
 */
import { AppError } from "../../errors/mod.ts";
import type { LakeDatasource, LakeFormat, LakeRoot, LakeTableRef } from "./types.ts";

/**
 * One namespace segment or table name. The spec's grammar is `[a-z0-9][a-z0-9_.-]{0,63}` with
 * dots excluded inside a segment (so the dotted shorthand round-trips), which leaves this.
 */
export const LAKE_SEGMENT_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const LAKE_NAMESPACE_MAX_SEGMENTS = 9;
export const LAKE_FORMATS = ["parquet", "iceberg"] as const;
/** A plain SQL column identifier; the partition column names a column of the files. */
export const PARTITION_COLUMN_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const LOCATION_MAX = 2048;
// Quotes, backslashes, whitespace (Unicode too) and control characters: all refused.
const FORBIDDEN_LOCATION_CHARS = /['"`\\\s\p{Cc}]/u;
const GLOB_CHARS = /[*?[\]{}]/;
const S3_BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Array of segments or dotted shorthand → the array; 400 `lake_namespace_invalid` otherwise. */
export function parseNamespace(value: unknown): string[] {
  const invalid = (reason: string) =>
    new AppError("datasource.validation.lake_namespace_invalid", { reason });
  let segments: unknown[];
  if (typeof value === "string") segments = value.split(".");
  else if (Array.isArray(value)) segments = value;
  else throw invalid("give an array of segments or a dotted string");
  if (segments.length < 1 || segments.length > LAKE_NAMESPACE_MAX_SEGMENTS) {
    throw invalid(`${segments.length} segments; 1 to ${LAKE_NAMESPACE_MAX_SEGMENTS} allowed`);
  }
  for (const s of segments) {
    if (typeof s !== "string" || !LAKE_SEGMENT_RE.test(s)) {
      throw invalid(`segment ${JSON.stringify(s)} breaks the grammar`);
    }
  }
  return segments as string[];
}

/** The dotted form stored and used as the DuckDB schema name. */
export function joinNamespace(segments: string[]): string {
  return segments.join(".");
}

export function parseTableName(value: unknown): string {
  if (typeof value !== "string" || !LAKE_SEGMENT_RE.test(value)) {
    throw new AppError("datasource.validation.lake_name_invalid", {
      reason: `${JSON.stringify(value ?? null)} is not one segment`,
    });
  }
  return value;
}

export function parseFormat(value: unknown): LakeFormat {
  if (typeof value !== "string" || !(LAKE_FORMATS as readonly string[]).includes(value)) {
    throw new AppError("datasource.validation.lake_format_invalid", {
      format: JSON.stringify(value ?? null),
    });
  }
  return value as LakeFormat;
}

/** Absent (undefined, null, empty) → undefined; otherwise a plain column identifier. */
export function parsePartitionColumn(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !PARTITION_COLUMN_RE.test(value)) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "partition_column",
      reason: "must be a column identifier [A-Za-z_][A-Za-z0-9_]{0,127}",
    });
  }
  return value;
}

function locationError(reason: string): AppError {
  return new AppError("datasource.validation.lake_location_invalid", { reason });
}

/** Checks the characters and scheme every lake URL shares; returns the parsed pieces. */
function parseLakeUrl(value: unknown): LakeRoot & { path: string } {
  if (typeof value !== "string" || value.length === 0) throw locationError("location is required");
  if (value.length > LOCATION_MAX) throw locationError(`longer than ${LOCATION_MAX} characters`);
  if (FORBIDDEN_LOCATION_CHARS.test(value)) {
    throw locationError("quotes, backslashes, whitespace and control characters are not allowed");
  }
  let rest: string;
  let scheme: "s3" | "file";
  if (value.startsWith("s3://")) {
    scheme = "s3";
    rest = value.slice(5);
  } else if (value.startsWith("file://")) {
    scheme = "file";
    rest = value.slice(7);
  } else {
    throw locationError("only s3:// and file:// locations are accepted");
  }
  const segments = rest.split("/");
  if (segments.some((s) => s === ".." || s === ".")) {
    throw locationError("'.' and '..' path segments are not allowed");
  }
  if (scheme === "file") {
    if (!rest.startsWith("/")) throw locationError("file:// locations are file:///absolute/path");
    if (rest.includes("//")) throw locationError("empty path segments are not allowed");
    return { scheme, path: rest, dir: rest };
  }
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!S3_BUCKET_RE.test(bucket)) throw locationError(`${bucket} is not an S3 bucket name`);
  const key = slash < 0 ? "" : rest.slice(slash + 1);
  return { scheme, bucket, prefix: key, path: key };
}

/**
 * The lake root of a LAKE datasource: `jdbc:lake:s3://bucket/prefix` or `jdbc:lake:file:///dir`
 * A file root is a directory without globs; trailing slashes are dropped.
 */
export function parseLakeRoot(jdbcUrl: string): LakeRoot {
  if (!jdbcUrl.startsWith("jdbc:lake:")) {
    throw locationError("a LAKE jdbc_url is jdbc:lake:s3://bucket/prefix or jdbc:lake:file:///dir");
  }
  const parsed = parseLakeUrl(jdbcUrl.slice("jdbc:lake:".length));
  if (GLOB_CHARS.test(parsed.path)) throw locationError("the lake root may not hold a glob");
  if (parsed.scheme === "file") {
    const dir = parsed.dir.replace(/\/+$/, "") || "/";
    return { scheme: "file", dir };
  }
  return { scheme: "s3", bucket: parsed.bucket, prefix: parsed.prefix.replace(/\/+$/, "") };
}

/**
 * A table location: `s3://bucket/prefix[/glob]` or `file:///path`; for iceberg the current metadata
 * file (`….json`, no glob). A `file://` location must lie inside the datasource's own `file://`
 * root, so registering a table can never open the rest of the server's disk, and an s3 lake cannot
 * register local files.
 */
export function parseLocation(value: unknown, format: LakeFormat, root: LakeRoot): string {
  const parsed = parseLakeUrl(value);
  const location = value as string;
  if (parsed.scheme === "s3" && parsed.path === "") {
    throw locationError("an s3:// location names an object or prefix inside the bucket");
  }
  if (parsed.scheme === "file") {
    if (root.scheme !== "file") {
      throw locationError("file:// locations are accepted only on a file:// lake");
    }
    const base = root.dir === "/" ? "/" : `${root.dir}/`;
    if (!parsed.dir.startsWith(base) || parsed.dir.length === base.length) {
      throw locationError(`file:// locations must lie inside the lake root ${root.dir}`);
    }
  }
  if (format === "iceberg") {
    if (GLOB_CHARS.test(parsed.path)) throw locationError("an iceberg location cannot be a glob");
    if (!parsed.path.endsWith(".json")) {
      throw locationError("an iceberg location is the table's current metadata .json file");
    }
  }
  return location;
}

/** `file:///a/b` → `/a/b`, the path DuckDB and Deno read; s3 URLs are kept as they are. */
export function localPath(location: string): string {
  return location.startsWith("file://") ? location.slice("file://".length) : location;
}

/** A request body that must be a JSON object. */
export function body(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "body",
      reason: "expected a JSON object",
    });
  }
  return value as Record<string, unknown>;
}

/** Validates one table definition against the datasource's root. */
export function parseLakeTable(ds: LakeDatasource, input: unknown): LakeTableRef {
  const b = body(input);
  const namespace = parseNamespace(b.namespace);
  const name = parseTableName(b.name);
  const format = parseFormat(b.format);
  const location = parseLocation(b.location, format, parseLakeRoot(ds.jdbc_url));
  const partition_column = parsePartitionColumn(b.partition_column);
  return { namespace, name, format, location, ...(partition_column ? { partition_column } : {}) };
}
