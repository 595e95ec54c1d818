import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { forEachStore, freshStore } from "../../tests/support/stores.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { Assets } from "../lib/assets.ts";
import { toIso } from "../lib/time.ts";
import {
  bool,
  type Db,
  isUniqueViolation,
  loadMigrations,
  migrate,
  MigrationError,
  toSqlitePlaceholders,
} from "./mod.ts";
import { SqliteDb } from "./sqlite.ts";
import { insertUser as insertRowUser } from "./row_fixtures.ts";

const insertUser = (db: Pick<Db, "execute">, email: string) =>
  insertRowUser(db, email, { display_name: "Someone", is_admin: false });

Deno.test("toSqlitePlaceholders() renumbers $n but leaves quoted text alone", () => {
  equal(
    toSqlitePlaceholders(`SELECT $2, '$1 it''s', "a$3" FROM t WHERE x = $1`),
    `SELECT ?2, '$1 it''s', "a$3" FROM t WHERE x = ?1`,
  );
});

Deno.test("both dialects ship the same migration numbers and names", async () => {
  const sqlite = (await loadMigrations("sqlite")).map((m) => m.name);
  const pg = (await loadMigrations("postgres")).map((m) => m.name);
  deepEqual(sqlite, pg);
  ok(sqlite.length >= 1);
});

Deno.test("loadMigrations() refuses a gap in the numbers: a missing file is never silently skipped", async () => {
  const root = await Deno.makeTempDir({ prefix: "svc_mig_" });
  try {
    await Deno.mkdir(`${root}/migrations/sqlite`, { recursive: true });
    await Deno.writeTextFile(`${root}/migrations/sqlite/0001_a.sql`, "SELECT 1;");
    await Deno.writeTextFile(`${root}/migrations/sqlite/0003_c.sql`, "SELECT 3;");
    await rejects(
      loadMigrations("sqlite", new Assets(new URL(`file://${root}/`))),
      /expected version 2, found 0003_c\.sql/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

forEachStore("migrate() applies every file once and is a no-op the second time", async (db) => {
  const again = await migrate(db);
  deepEqual(again, []);
  const rows = await db.query<{ version: number; checksum: string }>(
    "SELECT version, checksum FROM schema_migrations",
  );
  equal(rows.length, (await loadMigrations(db.dialect)).length);
  ok(rows.every((r) => r.checksum.startsWith("sha256:")));
});

forEachStore("migrate() refuses a changed checksum of an applied migration", async (db) => {
  const files = await loadMigrations(db.dialect);
  files[0] = { ...files[0], checksum: "sha256:0000" };
  await rejects(
    migrate(db, files),
    (e) =>
      e instanceof MigrationError && /0001_users\.sql changed after it was applied/.test(e.message),
  );
});

forEachStore("migrate() refuses a database that is newer than the build", async (db) => {
  await db.execute(
    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, '0099_future.sql', 'sha256:x', $1)",
    [new Date().toISOString()],
  );
  await rejects(migrate(db), /has migration 0099_future\.sql, which this build does not ship/);
});

forEachStore(
  "values round-trip: booleans, timestamps as ISO UTC, counts as numbers",
  async (db) => {
    const id = await insertUser(db, "a@example.com");
    const row = await db.first<Record<string, unknown>>("SELECT * FROM users WHERE id = $1", [id]);
    ok(row);
    equal(bool(row.is_admin), false);
    equal(bool(row.is_active), true);
    ok(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(toIso(row.created_at)!));
    const count = await db.first<{ n: number }>("SELECT count(*) AS n FROM users");
    equal(count?.n, 1);
  },
);

forEachStore("transaction() commits on success and rolls back on a throw", async (db) => {
  await db.transaction(async (tx) => {
    await insertUser(tx, "kept@example.com");
  });
  await rejects(
    db.transaction(async (tx) => {
      await insertUser(tx, "lost@example.com");
      throw new Error("boom");
    }),
    /boom/,
  );
  const emails = await db.query<{ email: string }>("SELECT email FROM users ORDER BY email");
  deepEqual(emails.map((r) => r.email), ["kept@example.com"]);
});

forEachStore("a unique violation is recognised on either dialect", async (db) => {
  await insertUser(db, "dup@example.com");
  const error = await insertUser(db, "dup@example.com").then(() => undefined, (e) => e);
  ok(isUniqueViolation(error), String(error));
});

forEachStore("statements outside a transaction never land inside another one", async (db) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = db.transaction(async (t) => {
    await insertUser(t, "in-tx@example.com");
    await gate;
    throw new Error("roll back");
  });
  // Issued while the transaction is open; must not be swept away by its rollback.
  const outside = insertUser(db, "outside@example.com");
  setTimeout(release, 20);
  await rejects(tx, /roll back/);
  await outside;
  const emails = await db.query<{ email: string }>("SELECT email FROM users");
  deepEqual(emails.map((r) => r.email), ["outside@example.com"]);
});

Deno.test("both dialects end with the same tables and columns", {
  ignore: skipUnless("postgres"),
}, async () => {
  const shape = async (kind: "sqlite" | "postgres") => {
    const store = await freshStore(kind);
    try {
      const db = await store.open();
      await migrate(db);
      const columns = kind === "sqlite"
        ? await db.query<{ t: string; c: string }>(
          `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
           WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
        )
        : await db.query<{ t: string; c: string }>(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
           WHERE table_schema = current_schema()`,
        );
      return columns.map((r) => `${r.t}.${r.c}`).sort();
    } finally {
      await store.dispose();
    }
  };
  const [sqlite, pg] = await Promise.all([shape("sqlite"), shape("postgres")]);
  ok(sqlite.includes("users.email"));
  deepEqual(sqlite, pg);
});

// Replicas are PostgreSQL's case; two SQLite processes on one file are tested with real
// processes in tests/process_test.ts (one thread cannot hold two connections waiting on each other).
Deno.test("[postgres] two replicas migrating one empty database at once both succeed, once", {
  ignore: skipUnless("postgres"),
}, async () => {
  const store = await freshStore("postgres");
  try {
    const [a, b] = [await store.open(), await store.open()];
    const [ranA, ranB] = await Promise.all([migrate(a), migrate(b)]);
    const total = (await loadMigrations("postgres")).length;
    equal(ranA.length + ranB.length, total);
    equal((await a.query("SELECT version FROM schema_migrations")).length, total);
  } finally {
    await store.dispose();
  }
});

Deno.test("the embedded store's database and its -wal and -shm files are the service user's only", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/service.db`;
  try {
    // An install from before: the file exists, readable by everyone.
    await Deno.writeFile(path, new Uint8Array(), { mode: 0o644 });
    await Deno.chmod(path, 0o644);
    const db = await SqliteDb.open(`sqlite:${path}`);
    try {
      await db.execute("CREATE TABLE t (a INTEGER)");
      await db.execute("INSERT INTO t VALUES (1)");
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        equal((await Deno.stat(file)).mode! & 0o777, 0o600, file);
      }
    } finally {
      await db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
