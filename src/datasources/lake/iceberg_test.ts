import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { writeIcebergTable } from "../../../tests/support/lake.ts";
import { decodeAvro } from "./avro.ts";
import { IcebergReadError, scanIceberg } from "./iceberg.ts";

async function fixture() {
  const dir = await Deno.makeTempDir({ prefix: "svc_iceberg_" });
  return { dir, table: await writeIcebergTable(dir) };
}

Deno.test("scanIceberg() lists the live data files of the current snapshot only", async () => {
  const { dir, table } = await fixture();
  try {
    const v1 = await scanIceberg(table.v1);
    deepEqual(v1.files.map((f) => f.split("/").pop()), ["f1.parquet", "f2.parquet"]);
    const v2 = await scanIceberg(table.v2);
    deepEqual(v2.files.map((f) => f.split("/").pop()), ["f1.parquet", "f3.parquet"]);
    deepEqual(v2.fields.map((f) => [f.id, f.name]), [[1, "id"], [2, "name"], [3, "amount"], [
      4,
      "day",
    ]]);
    ok(v2.snapshot_id !== v1.snapshot_id);
    const v0 = await scanIceberg(table.v0);
    deepEqual([v0.files, v0.snapshot_id], [[], null]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the fixture's manifests carry Iceberg's field ids and metadata", async () => {
  const { dir, table } = await fixture();
  try {
    const manifest = await decodeAvro(await Deno.readFile(`${table.root}/metadata/m2.avro`));
    equal(manifest.metadata["format-version"], "2");
    equal(manifest.metadata.content, "data");
    equal(manifest.metadata["avro.codec"], "deflate");
    const schema = JSON.parse(manifest.metadata["avro.schema"]);
    equal(schema.name, "manifest_entry");
    const dataFile = schema.fields.find((f: { name: string }) => f.name === "data_file");
    equal(dataFile["field-id"], 2);
    equal(
      dataFile.type.fields.find((f: { name: string }) => f.name === "file_path")["field-id"],
      100,
    );
    deepEqual(manifest.records.map((r) => r.status), [0, 2]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scanIceberg() refuses unreadable, foreign and delete-carrying tables", async () => {
  const { dir, table } = await fixture();
  try {
    await rejects(scanIceberg(`file://${dir}/missing.metadata.json`), IcebergReadError);
    await rejects(scanIceberg("s3://bucket/t/metadata/v1.metadata.json"), IcebergReadError);
    await Deno.writeTextFile(`${dir}/bad.metadata.json`, "{not json");
    await rejects(scanIceberg(`file://${dir}/bad.metadata.json`), IcebergReadError);
    const meta = JSON.parse(await Deno.readTextFile(table.v2.slice(7)));
    await Deno.writeTextFile(
      `${dir}/v9.metadata.json`,
      JSON.stringify({ ...meta, "format-version": 9 }),
    );
    await rejects(scanIceberg(`file://${dir}/v9.metadata.json`), /format-version 9/);
    await Deno.writeTextFile(
      `${dir}/lost.metadata.json`,
      JSON.stringify({ ...meta, "current-snapshot-id": 42 }),
    );
    await rejects(scanIceberg(`file://${dir}/lost.metadata.json`), /snapshot 42/);
    await rejects(scanIceberg(table.v3Deletes), /delete files/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
