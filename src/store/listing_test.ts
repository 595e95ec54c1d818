import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { Conditions, countOf, markers, readPage } from "./mod.ts";

Deno.test("markers() numbers a run of placeholders from where it is told", () => {
  equal(markers(3), "$1, $2, $3");
  equal(markers(2, 4), "$4, $5");
});

Deno.test("Conditions numbers each value's placeholder and reads TRUE with none", () => {
  equal(new Conditions().sql, "TRUE");
  const w = new Conditions()
    .add("a = $?", 1)
    .add("b IS NULL")
    .add("(c LIKE $? OR d LIKE $?)", "%x%");
  equal(w.sql, "a = $1 AND b IS NULL AND (c LIKE $2 OR d LIKE $2)");
  deepEqual(w.params, [1, "%x%"]);
  const given = new Conditions().addGiven({
    "a = $?": "x",
    "b = $?": undefined,
    "c = $?": "",
    "d = $?": 0,
  });
  equal(given.sql, "a = $1 AND d = $2");
  deepEqual(given.params, ["x", 0]);
});

forEachStore(
  "countOf() and readPage() read a count and one page over the same filter",
  async (db) => {
    await db.execute("CREATE TABLE listing_probe (k TEXT, v INTEGER)");
    for (let v = 1; v <= 7; v++) {
      await db.execute("INSERT INTO listing_probe (k, v) VALUES ($1, $2)", [
        v % 2 ? "odd" : "even",
        v,
      ]);
    }
    equal(await countOf(db, "SELECT count(*) AS n FROM listing_probe"), 7);
    equal(await countOf(db, "SELECT count(*) AS n FROM listing_probe WHERE k = $1", ["none"]), 0);
    const w = new Conditions().add("k = $?", "odd").add("v > $?", 1);
    const page = await readPage(
      db,
      `SELECT count(*) AS n FROM listing_probe WHERE ${w.sql}`,
      `SELECT v FROM listing_probe WHERE ${w.sql} ORDER BY v`,
      w.params,
      { offset: 1, limit: 1 },
      (r) => Number(r.v),
    );
    equal(page.total, 3);
    deepEqual(page.items, [5]);
  },
);
