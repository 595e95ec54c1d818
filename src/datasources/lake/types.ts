/** The lake vocabulary (spec 3 §2.3, §4.2): registry rows and the datasource they belong to. */

export type LakeFormat = "parquet" | "iceberg";

/** Where a LAKE datasource's `jdbc_url` points. */
export type LakeRoot =
  | { scheme: "file"; dir: string }
  | { scheme: "s3"; bucket: string; prefix: string };

/**
 * The datasource a lake operation acts on, as the registry hands it over (this domain does not
 * look datasources up). `endpoint` is an S3-compatible endpoint declared in `properties.jdbc`.
 */
export interface LakeDatasource {
  id: string;
  name: string;
  dialect: string;
  jdbc_url: string;
  /** True for a global datasource: writing its registry needs a super admin. */
  global?: boolean;
  properties?: { jdbc?: Record<string, unknown> };
}

/** One registered table, as the connector needs it. */
export interface LakeTableRef {
  namespace: string[];
  name: string;
  format: LakeFormat;
  location: string;
  partition_column?: string;
}

/** A registry row as served (`GET …/lake-tables`). */
export interface LakeTableRow extends LakeTableRef {
  created_at: string;
}

/** `GET /datasources/{name}/lake-tables`. */
export interface LakeTableListing {
  datasource: string;
  tables: LakeTableRow[];
  count: number;
}

/** `POST /datasources/{name}/tables/import`. */
export interface LakeImportResult {
  registered: LakeTableRef[];
  registered_count: number;
  already_registered: LakeTableRef[];
  already_registered_count: number;
}

/** Who writes, and what a write must trigger once committed. */
export interface LakeWriteOptions {
  actor?: { userId: string | null; isSuperAdmin: boolean };
  /** Called after a committed change: evict the datasource's pool, publish the invalidation. */
  onChange?: (datasource: LakeDatasource) => void | Promise<void>;
}
