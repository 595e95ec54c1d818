import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { manifestFetchUrl } from "./manifest_url.ts";
import type { LakeDatasource, LakeRoot } from "./types.ts";
import {
  parseFormat,
  parseLakeRoot,
  parseLocation,
  parseNamespace,
  parsePartitionColumn,
  parseTableName,
} from "./validate.ts";
import { thrownCode } from "../../../tests/support/refusals.ts";

const FILE_ROOT: LakeRoot = { scheme: "file", dir: "/lake" };
const S3_ROOT: LakeRoot = { scheme: "s3", bucket: "acme-lake", prefix: "warehouse" };

Deno.test("parseNamespace() takes 1 to 9 segments as an array or dotted", () => {
  deepEqual(parseNamespace("sales"), ["sales"]);
  deepEqual(parseNamespace("sales.eu-west.v_2"), ["sales", "eu-west", "v_2"]);
  deepEqual(parseNamespace(["a", "b"]), ["a", "b"]);
  deepEqual(parseNamespace(Array(9).fill("x")), Array(9).fill("x"));
  equal(parseNamespace("a".repeat(64))[0].length, 64);
  const bad = [
    "",
    "Sales",
    "_x",
    "-x",
    "a..b",
    ".a",
    "a.",
    "a b",
    "a/b",
    "a'b",
    "a".repeat(65),
    Array(10).fill("x"),
    [],
    ["a.b"],
    [1],
    42,
    null,
    undefined,
    { a: 1 },
  ];
  for (const v of bad) {
    equal(
      thrownCode(() => parseNamespace(v)),
      "datasource.validation.lake_namespace_invalid",
      JSON.stringify(v),
    );
  }
});

Deno.test("parseTableName() takes one segment only", () => {
  equal(parseTableName("orders_2024-q1"), "orders_2024-q1");
  for (const v of ["", "a.b", "Orders", "a b", "x".repeat(65), 3, null, ["a"]]) {
    equal(
      thrownCode(() => parseTableName(v)),
      "datasource.validation.lake_name_invalid",
      String(v),
    );
  }
});

Deno.test("parseFormat() takes parquet or iceberg exactly", () => {
  equal(parseFormat("parquet"), "parquet");
  equal(parseFormat("iceberg"), "iceberg");
  for (const v of ["PARQUET", "delta", "csv", "", null, 1]) {
    equal(thrownCode(() => parseFormat(v)), "datasource.validation.lake_format_invalid", String(v));
  }
});

Deno.test("parsePartitionColumn() takes an identifier or nothing", () => {
  equal(parsePartitionColumn(undefined), undefined);
  equal(parsePartitionColumn(null), undefined);
  equal(parsePartitionColumn("order_date"), "order_date");
  for (const v of ["1x", "a-b", "a b", 'a"', 5]) {
    equal(thrownCode(() => parsePartitionColumn(v)), "pipeline.execution.invalid_parameter_type");
  }
});

Deno.test("parseLocation() refuses quotes, backslashes, whitespace, controls and other schemes", () => {
  equal(
    parseLocation("file:///lake/sales/*.parquet", "parquet", FILE_ROOT),
    "file:///lake/sales/*.parquet",
  );
  equal(
    parseLocation("s3://acme-lake/warehouse/orders/**/*.parquet", "parquet", S3_ROOT),
    "s3://acme-lake/warehouse/orders/**/*.parquet",
  );
  equal(
    parseLocation("s3://other-bucket/t/m.json", "iceberg", S3_ROOT),
    "s3://other-bucket/t/m.json",
  );
  const bad: [unknown, LakeRoot][] = [
    ["file:///lake/a'); COPY x TO '/tmp/p' --.parquet", FILE_ROOT],
    ['file:///lake/a".parquet', FILE_ROOT],
    ["file:///lake/a`b.parquet", FILE_ROOT],
    ["file:///lake/a\\b.parquet", FILE_ROOT],
    ["file:///lake/a b.parquet", FILE_ROOT],
    ["file:///lake/a\tb.parquet", FILE_ROOT],
    ["file:///lake/a\u00a0b.parquet", FILE_ROOT],
    ["file:///lake/a\u0000b.parquet", FILE_ROOT],
    ["file:///lake/a\nb.parquet", FILE_ROOT],
    ["file:///lake/a\u007fb.parquet", FILE_ROOT],
    ["https://example.com/a.parquet", FILE_ROOT],
    ["http://acme-lake.s3.amazonaws.com/a.parquet", S3_ROOT],
    ["gs://bucket/a.parquet", S3_ROOT],
    ["/lake/a.parquet", FILE_ROOT],
    ["lake/a.parquet", FILE_ROOT],
    ["S3://acme-lake/a.parquet", S3_ROOT],
    ["file://host/lake/a.parquet", FILE_ROOT],
    ["file:///lake/../etc/passwd", FILE_ROOT],
    ["file:///etc/passwd", FILE_ROOT],
    ["file:///lakehouse/a.parquet", FILE_ROOT],
    ["file:///lake", FILE_ROOT],
    ["file:///lake/a.parquet", S3_ROOT],
    ["s3://acme-lake", S3_ROOT],
    ["s3://Bad_Bucket/a.parquet", S3_ROOT],
    ["", FILE_ROOT],
    [42, FILE_ROOT],
    ["file:///lake/" + "x".repeat(2100), FILE_ROOT],
  ];
  for (const [v, root] of bad) {
    equal(
      thrownCode(() => parseLocation(v, "parquet", root)),
      "datasource.validation.lake_location_invalid",
      JSON.stringify(v),
    );
  }
  for (const v of ["file:///lake/t/*.json", "file:///lake/t", "file:///lake/t/data.parquet"]) {
    equal(
      thrownCode(() => parseLocation(v, "iceberg", FILE_ROOT)),
      "datasource.validation.lake_location_invalid",
    );
  }
  equal(
    parseLocation("file:///lake/t/metadata/v2.metadata.json", "iceberg", FILE_ROOT).length > 0,
    true,
  );
});

Deno.test("parseLakeRoot() reads both jdbc_url forms and nothing else", () => {
  deepEqual(parseLakeRoot("jdbc:lake:file:///srv/lake/"), { scheme: "file", dir: "/srv/lake" });
  deepEqual(parseLakeRoot("jdbc:lake:s3://acme-lake/warehouse"), {
    scheme: "s3",
    bucket: "acme-lake",
    prefix: "warehouse",
  });
  for (
    const v of [
      "jdbc:lake:gs://x/y",
      "jdbc:duckdb:/x",
      "jdbc:lake:file:///a/*",
      "jdbc:lake:file:///a b",
    ]
  ) {
    throws(() => parseLakeRoot(v), AppError);
  }
});

const lake = (jdbc_url: string, endpoint?: string): LakeDatasource => ({
  id: "00000000-0000-7000-8000-000000000001",
  name: "lake1",
  dialect: "LAKE",
  jdbc_url,
  properties: endpoint ? { jdbc: { endpoint } } : {},
});

Deno.test("manifestFetchUrl() follows the host rules of §4.2", () => {
  const s3 = lake("jdbc:lake:s3://acme-lake/warehouse");
  equal(
    manifestFetchUrl("s3://acme-lake/m/manifest.json", s3).href,
    "https://acme-lake.s3.amazonaws.com/m/manifest.json",
  );
  equal(
    manifestFetchUrl("https://acme-lake.s3.eu-west-1.amazonaws.com/m.json", s3).hostname,
    "acme-lake.s3.eu-west-1.amazonaws.com",
  );
  equal(
    manifestFetchUrl("https://s3.us-east-2.amazonaws.com/acme-lake/m.json", s3).pathname,
    "/acme-lake/m.json",
  );
  const minio = lake("jdbc:lake:s3://acme-lake/w", "http://127.0.0.1:9000");
  equal(
    manifestFetchUrl("s3://acme-lake/m.json", minio).href,
    "http://127.0.0.1:9000/acme-lake/m.json",
  );
  equal(manifestFetchUrl("http://127.0.0.1:9000/acme-lake/m.json", minio).port, "9000");
  const local = lake("jdbc:lake:file:///srv/lake");
  equal(manifestFetchUrl("https://anything.s3.amazonaws.com/m.json", local).protocol, "https:");
  equal(manifestFetchUrl("s3://pub-bucket/m.json", local).hostname, "pub-bucket.s3.amazonaws.com");

  const refused: [string, LakeDatasource][] = [
    ["https://evil.example/m.json", s3],
    ["https://evil.example/m.json", local],
    ["https://other-bucket.s3.amazonaws.com/m.json", s3],
    ["s3://other-bucket/m.json", s3],
    ["https://s3.amazonaws.com/other-bucket/m.json", s3],
    ["http://acme-lake.s3.amazonaws.com/m.json", s3],
    ["https://acme-lake.s3.amazonaws.com:8443/m.json", s3],
    ["https://user:pw@acme-lake.s3.amazonaws.com/m.json", s3],
    ["https://acme-lake.s3.amazonaws.com.evil.example/m.json", s3],
    ["https://s3.amazonaws.com.evil.example/acme-lake/m.json", local],
    ["http://169.254.169.254/latest/meta-data", local],
    ["http://127.0.0.1:9001/acme-lake/m.json", minio],
    ["https://evil.example/acme-lake/m.json", minio],
    ["file:///etc/passwd", local],
    ["not a url", local],
  ];
  for (const [u, ds] of refused) {
    equal(
      thrownCode(() => manifestFetchUrl(u, ds)),
      "datasource.validation.lake_manifest_url_forbidden",
      u,
    );
  }
});
