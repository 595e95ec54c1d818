/**
 * Reading an Iceberg table without DuckDB's iceberg extension (it cannot be loaded offline):
 * metadata JSON → current snapshot → manifest list (Avro) → manifests (Avro) → live data files
 * (status EXISTING or ADDED, content DATA), which DuckDB then scans as parquet. Delete files
 * (position or equality deletes) are not applied by this reader, so a snapshot that carries live
 * ones is refused rather than served with rows that were deleted.
 */
import { decodeAvro } from "./avro.ts";

/** Manifest entry status (Iceberg spec, manifest_entry.status). */
export const ENTRY_STATUS = { EXISTING: 0, ADDED: 1, DELETED: 2 } as const;
/** data_file.content and manifest_file.content. */
export const CONTENT = { DATA: 0, POSITION_DELETES: 1, EQUALITY_DELETES: 2 } as const;

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: unknown;
}

/** What a scan of the current snapshot needs. */
export interface IcebergScan {
  /** The live data files, as local paths or remote URIs. */
  files: string[];
  /** The current schema's top-level fields. */
  fields: IcebergField[];
  snapshot_id: number | null;
}

/** Raised when the table cannot be read; the message says what is wrong with it. */
export class IcebergReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IcebergReadError";
  }
}

/** `file:///x` → `/x`; other URIs (s3://) stay for DuckDB to judge. */
export function icebergPath(uri: string): string {
  return uri.startsWith("file://") ? uri.slice("file://".length) : uri;
}

async function readBytes(uri: string): Promise<Uint8Array> {
  if (!uri.startsWith("file://") && !uri.startsWith("/")) {
    throw new IcebergReadError(`${uri}: only local (file://) Iceberg metadata can be read here`);
  }
  try {
    return await Deno.readFile(icebergPath(uri));
  } catch (e) {
    throw new IcebergReadError(`${uri}: ${(e as Error).message}`);
  }
}

function currentFields(meta: Record<string, unknown>): IcebergField[] {
  const schemas = meta.schemas as { "schema-id": number; fields: IcebergField[] }[] | undefined;
  if (Array.isArray(schemas)) {
    const current = schemas.find((s) => s["schema-id"] === meta["current-schema-id"]);
    if (current) return current.fields;
  }
  const single = meta.schema as { fields?: IcebergField[] } | undefined;
  if (single?.fields) return single.fields;
  throw new IcebergReadError("the metadata file has no current schema");
}

/** Manifest paths of a snapshot: v2 `manifest-list`, or v1's inline `manifests`. */
async function manifestsOf(snapshot: Record<string, unknown>): Promise<string[]> {
  if (typeof snapshot["manifest-list"] === "string") {
    const list = await decodeAvro(await readBytes(snapshot["manifest-list"]));
    return list.records.map((m) => String(m.manifest_path));
  }
  if (Array.isArray(snapshot.manifests)) return snapshot.manifests.map(String);
  throw new IcebergReadError("the current snapshot lists no manifests");
}

/** Reads the metadata file at `metadataUri` and lists the live data files of its snapshot. */
export async function scanIceberg(metadataUri: string): Promise<IcebergScan> {
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(new TextDecoder().decode(await readBytes(metadataUri)));
  } catch (e) {
    if (e instanceof IcebergReadError) throw e;
    throw new IcebergReadError(`${metadataUri}: not a metadata JSON file`);
  }
  const version = meta["format-version"];
  if (version !== 1 && version !== 2) {
    throw new IcebergReadError(`format-version ${String(version)} is not supported (1 and 2 are)`);
  }
  const fields = currentFields(meta);
  const snapshotId = meta["current-snapshot-id"] as number | null | undefined;
  if (snapshotId === null || snapshotId === undefined || snapshotId === -1) {
    return { files: [], fields, snapshot_id: null };
  }
  const snapshots = (meta.snapshots ?? []) as Record<string, unknown>[];
  const snapshot = snapshots.find((s) => s["snapshot-id"] === snapshotId);
  if (!snapshot) throw new IcebergReadError(`current snapshot ${snapshotId} is not listed`);

  const files: string[] = [];
  for (const manifestPath of await manifestsOf(snapshot)) {
    const manifest = await decodeAvro(await readBytes(manifestPath));
    for (const entry of manifest.records) {
      if (Number(entry.status) === ENTRY_STATUS.DELETED) continue;
      const dataFile = entry.data_file as Record<string, unknown>;
      const content = Number(dataFile.content ?? CONTENT.DATA);
      if (content !== CONTENT.DATA) {
        throw new IcebergReadError(
          `snapshot ${snapshotId} carries delete files (${String(dataFile.file_path)}); ` +
            "applying Iceberg deletes is not supported by this reader",
        );
      }
      const format = String(dataFile.file_format).toUpperCase();
      if (format !== "PARQUET") {
        throw new IcebergReadError(
          `${String(dataFile.file_path)} is ${format}; only PARQUET is read`,
        );
      }
      files.push(icebergPath(String(dataFile.file_path)));
    }
  }
  return { files, fields, snapshot_id: snapshotId };
}

const PRIMITIVES: Record<string, string> = {
  boolean: "BOOLEAN",
  int: "INTEGER",
  long: "BIGINT",
  float: "FLOAT",
  double: "DOUBLE",
  date: "DATE",
  time: "TIME",
  timestamp: "TIMESTAMP",
  timestamptz: "TIMESTAMPTZ",
  timestamp_ns: "TIMESTAMP_NS",
  timestamptz_ns: "TIMESTAMPTZ",
  string: "VARCHAR",
  uuid: "UUID",
  binary: "BLOB",
};

/** The DuckDB type of an Iceberg field type (for an empty table's typed, row-less view). */
export function duckdbTypeOf(type: unknown): string {
  if (typeof type === "string") {
    if (PRIMITIVES[type]) return PRIMITIVES[type];
    const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
    if (decimal) return `DECIMAL(${decimal[1]},${decimal[2]})`;
    if (/^fixed\[\d+\]$/.test(type)) return "BLOB";
  }
  return "JSON";
}
