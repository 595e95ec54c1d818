import { deepEqual, equal, ok } from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { DatabaseSync } from "node:sqlite";
import { generateDemoFiles } from "./data.ts";

async function shopTables(path: string): Promise<Record<string, unknown[][]>> {
  const instance = await DuckDBInstance.create(path, { access_mode: "READ_ONLY" });
  const conn = await instance.connect();
  try {
    const out: Record<string, unknown[][]> = {};
    for (const table of ["customers", "products", "orders", "order_lines"]) {
      out[table] = (await conn.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`)).getRowsJson();
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function crmTables(path: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return {
      countries: db.prepare("SELECT * FROM countries ORDER BY code").all(),
      sales_targets: db.prepare("SELECT * FROM sales_targets ORDER BY country, month").all(),
    };
  } finally {
    db.close();
  }
}

Deno.test("generateDemoFiles() writes the same rows on every instance and keeps a file it finds", async () => {
  const [a, b] = [await Deno.makeTempDir(), await Deno.makeTempDir()];
  try {
    const [fa, fb] = [await generateDemoFiles(a), await generateDemoFiles(b)];
    const shop = await shopTables(fa.shop);
    deepEqual(await shopTables(fb.shop), shop);
    deepEqual(crmTables(fb.crm), crmTables(fa.crm));

    equal(shop.customers.length, 600);
    equal(shop.products.length, 40);
    equal(shop.orders.length, 4000);
    ok(shop.order_lines.length > 8000 && shop.order_lines.length < 12000);
    equal(crmTables(fa.crm).sales_targets.length, 8 * 12);
    // Nothing is left beside the files: temporary names were renamed or removed.
    deepEqual([...Deno.readDirSync(`${a}/demo`)].map((e) => e.name).sort(), [
      "crm.sqlite",
      "shop.duckdb",
    ]);

    const before = (await Deno.stat(fa.shop)).mtime;
    await generateDemoFiles(a);
    deepEqual((await Deno.stat(fa.shop)).mtime, before);
  } finally {
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  }
});
