/** The lake vocabulary: registry rows and the datasource they belong to. */

export type LakeFormat = "parquet" | "iceberg";

/** A registered table, a registry row, the listing and an import's report: the views. */
export type { LakeImportResult, LakeTableListing, LakeTableRef, LakeTableRow } from "../views.ts";

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

/** Who writes, and what a write must trigger once committed. */
export interface LakeWriteOptions {
  actor?: { userId: string | null; isSuperAdmin: boolean };
  /** Called after a committed change: evict the datasource's pool, publish the invalidation. */
  onChange?: (datasource: LakeDatasource) => void | Promise<void>;
}
