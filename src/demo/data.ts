/**
 * The demo's two database files, generated offline into `<data-dir>/demo/`:
 *
 * - `shop.duckdb` (DUCKDB): `customers` (600), `products` (40), `orders` (4,000 over 2025) and
 *   `order_lines` (about 10,000), built by DuckDB SQL over `range()`.
 * - `crm.sqlite` (SQLITE): `countries` (8, with region and account manager) and `sales_targets`
 *   (one per country and month of 2025), so a pipeline can join two sources in staging.
 *
 * Deterministic: values come from a fixed integer mix of the row number, never from `random()`
 * or the engine's `hash()` (whose output may change between DuckDB versions), so every instance
 * generates byte-for-byte the same rows. Each file is written under a temporary name and renamed
 * into place, so a crash never leaves a half-built file where the datasource points.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { DatabaseSync } from "node:sqlite";
import { resolve } from "node:path";
import { exists } from "../lib/exists.ts";

export const DEMO_COUNTRIES = ["DE", "FR", "GB", "NL", "ES", "IT", "SE", "US"] as const;
export const DEMO_SEGMENTS = ["consumer", "small_business", "enterprise"] as const;

// deno-fmt-ignore
const FIRST_NAMES = ["Anna", "Ben", "Chloe", "David", "Elena", "Felix", "Grace", "Hugo", "Ines",
  "Jonas", "Karin", "Luca", "Maya", "Noah", "Olivia", "Pablo", "Rosa", "Sven", "Tara", "Victor"];
// deno-fmt-ignore
const LAST_NAMES = ["Andersen", "Becker", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Hansen",
  "Ivanova", "Jensen", "Keller", "Laurent", "Moreau", "Novak", "Olsen", "Petrov", "Rossi",
  "Schmidt", "Torres", "Weber"];

const list = (items: readonly string[]) => `[${items.map((s) => `'${s}'`).join(", ")}]`;

/**
 * A value in [0, 1) from a seed and a row number: Knuth's multiplicative step, then squared modulo
 * a prime so that two columns drawn from neighbouring seeds are not linearly related.
 */
const MACROS = [
  `CREATE TEMP MACRO step(seed, i) AS (i * 2654435761 + seed * 97531) % 1000003`,
  `CREATE TEMP MACRO mix(seed, i) AS ((step(seed, i) * step(seed, i) + i) % 1000003) / 1000003.0`,
  `CREATE TEMP MACRO pick(items, seed, i) AS items[1 + floor(mix(seed, i) * len(items))::INTEGER]`,
];

const SHOP_SQL = [
  ...MACROS,
  `CREATE TABLE customers (
     customer_id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, email VARCHAR NOT NULL,
     country VARCHAR NOT NULL, segment VARCHAR NOT NULL, signup_date DATE NOT NULL)`,
  `INSERT INTO customers
   SELECT i,
     pick(${list(FIRST_NAMES)}, 1, i) || ' ' || pick(${list(LAST_NAMES)}, 2, i),
     'customer' || i || '@example.com',
     pick(${list(DEMO_COUNTRIES)}, 3, i),
     pick(['consumer', 'consumer', 'consumer', 'small_business', 'small_business', 'enterprise'], 4, i),
     DATE '2023-01-01' + floor(mix(5, i) * 730)::INTEGER
   FROM range(1, 601) t(i)`,
  `CREATE TABLE products (
     product_id INTEGER PRIMARY KEY, sku VARCHAR NOT NULL, name VARCHAR NOT NULL,
     category VARCHAR NOT NULL, unit_price DECIMAL(10, 2) NOT NULL)`,
  `INSERT INTO products
   SELECT i, 'SKU-' || lpad(i::VARCHAR, 4, '0'),
     pick(['Classic', 'Organic', 'House', 'Signature', 'Everyday', 'Reserve'], 6, i) || ' ' ||
       CASE category
         WHEN 'Coffee' THEN pick(['Espresso Beans', 'Filter Roast', 'Decaf Beans'], 7, i)
         WHEN 'Tea' THEN pick(['Green Tea', 'Earl Grey', 'Rooibos'], 7, i)
         WHEN 'Brewing' THEN pick(['Pour-over Kit', 'French Press', 'Grinder'], 7, i)
         WHEN 'Accessories' THEN pick(['Travel Mug', 'Filter Papers', 'Milk Jug'], 7, i)
         ELSE pick(['Almond Biscotti', 'Dark Chocolate', 'Shortbread'], 7, i)
       END,
     category,
     round(CASE category
       WHEN 'Coffee' THEN 8 + mix(8, i) * 17
       WHEN 'Tea' THEN 5 + mix(8, i) * 10
       WHEN 'Brewing' THEN 20 + mix(8, i) * 100
       WHEN 'Accessories' THEN 6 + mix(8, i) * 34
       ELSE 2 + mix(8, i) * 6
     END, 2)::DECIMAL(10, 2)
   FROM (SELECT i, ['Coffee', 'Tea', 'Brewing', 'Accessories', 'Snacks'][1 + i % 5] AS category
         FROM range(1, 41) t(i))`,
  `CREATE TABLE orders (
     order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, order_date DATE NOT NULL,
     status VARCHAR NOT NULL, channel VARCHAR NOT NULL)`,
  // Numbered by date, so order ids grow with time as they would in a shop.
  `INSERT INTO orders
   SELECT row_number() OVER (ORDER BY order_date, i)::INTEGER, customer_id, order_date,
     status, channel
   FROM (
     SELECT i,
       1 + floor(mix(11, i) * 600)::INTEGER AS customer_id,
       DATE '2025-01-01' + floor(mix(12, i) * 365)::INTEGER AS order_date,
       CASE WHEN mix(13, i) < 0.86 THEN 'completed' WHEN mix(13, i) < 0.92 THEN 'pending'
            WHEN mix(13, i) < 0.96 THEN 'returned' ELSE 'cancelled' END AS status,
       pick(['web', 'web', 'web', 'mobile', 'mobile', 'store'], 14, i) AS channel
     FROM range(1, 4001) t(i))
   ORDER BY 1`,
  `CREATE TABLE order_lines (
     order_id INTEGER NOT NULL, line_no INTEGER NOT NULL, product_id INTEGER NOT NULL,
     quantity INTEGER NOT NULL, unit_price DECIMAL(10, 2) NOT NULL,
     PRIMARY KEY (order_id, line_no))`,
  `INSERT INTO order_lines
   SELECT l.order_id, l.line_no, l.product_id, l.quantity, p.unit_price
   FROM (
     SELECT o.order_id, r.n::INTEGER AS line_no,
       1 + floor(mix(21, o.order_id * 8 + r.n) * 40)::INTEGER AS product_id,
       1 + floor(mix(22, o.order_id * 8 + r.n) * 4)::INTEGER AS quantity
     FROM orders o JOIN range(1, 5) r(n) ON r.n <= 1 + floor(mix(20, o.order_id) * 4)) l
   JOIN products p ON p.product_id = l.product_id
   ORDER BY l.order_id, l.line_no`,
  `CHECKPOINT`,
];

const MANAGERS = [
  "Lena Vogel",
  "Camille Roux",
  "Oliver Hughes",
  "Sanne de Vries",
  "Lucía Navarro",
  "Giulia Conti",
  "Erik Lindqvist",
  "Megan Brooks",
];
const COUNTRY_NAMES: Record<string, [string, string]> = {
  DE: ["Germany", "DACH"],
  FR: ["France", "Western Europe"],
  GB: ["United Kingdom", "Western Europe"],
  NL: ["Netherlands", "Benelux"],
  ES: ["Spain", "Southern Europe"],
  IT: ["Italy", "Southern Europe"],
  SE: ["Sweden", "Nordics"],
  US: ["United States", "North America"],
};

/** Monthly targets in whole currency units: a base per country plus a seasonal swing. */
export function demoTarget(countryIndex: number, month: number): number {
  const base = 5600 + ((countryIndex * 7919) % 1300);
  const season = [0.9, 0.85, 0.95, 1, 1, 0.95, 0.9, 0.85, 1, 1.05, 1.15, 1.3][month - 1];
  return Math.round((base * season) / 100) * 100;
}

export interface DemoFiles {
  shop: string;
  crm: string;
}

/** Absolute paths of the demo files under a data directory. */
export function demoFiles(dataDir: string): DemoFiles {
  const dir = resolve(dataDir, "demo");
  return { shop: `${dir}/shop.duckdb`, crm: `${dir}/crm.sqlite` };
}

async function writeShop(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  try {
    const conn = await instance.connect();
    try {
      for (const sql of SHOP_SQL) await conn.run(sql);
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

function writeCrm(path: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`BEGIN;
      CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL, region TEXT NOT NULL,
                              account_manager TEXT NOT NULL);
      CREATE TABLE sales_targets (country TEXT NOT NULL REFERENCES countries (code),
                                  month TEXT NOT NULL, target_amount INTEGER NOT NULL,
                                  PRIMARY KEY (country, month));`);
    const country = db.prepare("INSERT INTO countries VALUES (?, ?, ?, ?)");
    const target = db.prepare("INSERT INTO sales_targets VALUES (?, ?, ?)");
    DEMO_COUNTRIES.forEach((code, i) => {
      const [name, region] = COUNTRY_NAMES[code];
      country.run(code, name, region, MANAGERS[i]);
      for (let m = 1; m <= 12; m++) {
        target.run(code, `2025-${String(m).padStart(2, "0")}`, demoTarget(i, m));
      }
    });
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

/** Writes `build(tmp)` and renames it to `path`; an existing file is kept as it is. */
async function generate(path: string, build: (tmp: string) => Promise<void> | void) {
  if (await exists(path, { followLinks: true })) return;
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await build(tmp);
    await Deno.rename(tmp, path);
  } finally {
    await Deno.remove(tmp).catch(() => {});
    await Deno.remove(`${tmp}.wal`).catch(() => {});
  }
}

/** Generates the files that are missing; returns their absolute paths. */
export async function generateDemoFiles(dataDir: string): Promise<DemoFiles> {
  const files = demoFiles(dataDir);
  await Deno.mkdir(resolve(dataDir, "demo"), { recursive: true });
  await Promise.all([generate(files.shop, writeShop), generate(files.crm, writeCrm)]);
  return files;
}
