/**
 * Fresh metadata stores for tests: a SQLite file in a temp dir, or a new PostgreSQL database.
 * `forEachStore` registers one test per store so every store test runs on both.
 */
import postgres from "postgres";
import { sha256Hex } from "../../src/lib/hashing.ts";
import { type Db, loadMigrations, migrate, openDb } from "../../src/store/mod.ts";
import { assertServices, POSTGRES_ADMIN_URL, type ServiceName, skipUnless } from "./services.ts";

export type StoreKind = "sqlite" | "postgres";
export const STORE_KINDS: StoreKind[] = ["sqlite", "postgres"];

const databaseUrl = (name: string) => {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

let template: Promise<string> | undefined;

/**
 * A PostgreSQL database with every migration of this checkout applied, named by their checksums,
 * that migrated test databases are copied from: copying it costs about 0.24 s of CPU, making an
 * empty database and migrating it 0.56 s, and some 500 PostgreSQL tests start so. Built once per
 * migration set (the test processes that race to build it agree by renaming theirs into place).
 * Templates of other sets are kept: a suite in another checkout, with other migrations, may be
 * copying from one at this moment.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const files = await loadMigrations("postgres");
    const hex = await sha256Hex(files.map((f) => `${f.name} ${f.checksum}`).join("\n"));
    const name = `svc_template_${hex.slice(0, 16)}`;
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      const found = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
      if (found.length > 0) return name;
      const building = `svc_build_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
      await admin.unsafe(`CREATE DATABASE ${building}`);
      const db = await openDb(databaseUrl(building));
      try {
        await migrate(db, files);
      } finally {
        await db.close();
      }
      try {
        await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
      } catch {
        // Another test process put the same template in place first.
        await admin.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      }
      return name;
    } finally {
      await admin.end();
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * Creates a PostgreSQL database, empty or (`migrated`) with every migration of this checkout
 * applied; `drop()` removes it even with open connections.
 */
export async function freshPostgresDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  assertServices("postgres");
  const name = `svc_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const from = options.migrated ? ` TEMPLATE ${await migratedTemplate()}` : "";
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}${from}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(name),
    async drop() {
      const a = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

export interface TestStore {
  kind: StoreKind;
  url: string;
  /** Opens another connection to the same store (a second replica, say). */
  open(): Promise<Db>;
  dispose(): Promise<void>;
}

/**
 * A fresh store of the given kind: empty, or (`migrated`, for a caller that migrates it next
 * anyway) already migrated where that is cheaper, as a copy of the migrated PostgreSQL template.
 */
export async function freshStore(
  kind: StoreKind,
  options: { migrated?: boolean } = {},
): Promise<TestStore> {
  const opened: Db[] = [];
  const open = async () => {
    const db = await openDb(url);
    opened.push(db);
    return db;
  };
  let url: string;
  let cleanup: () => Promise<void>;
  if (kind === "sqlite") {
    const dir = await Deno.makeTempDir({ prefix: "svc_test_" });
    url = `sqlite:${dir}/service.db`;
    cleanup = () => Deno.remove(dir, { recursive: true });
  } else {
    const pg = await freshPostgresDatabase(options);
    url = pg.url;
    cleanup = pg.drop;
  }
  return {
    kind,
    url,
    open,
    async dispose() {
      await Promise.all(opened.map((db) => db.close()));
      await cleanup();
    },
  };
}

/**
 * Registers `name` once per store kind, `[sqlite] name` and `[postgres] name`, handing `fn` the
 * kind: for tests that start the app on a store of their own (tests/support/harness.ts).
 */
export function forEachStoreKind(
  name: string,
  fn: (kind: StoreKind) => Promise<void>,
  options: { services?: ServiceName[] } = {},
): void {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `[${kind}] ${name}`,
      ignore: (kind === "postgres" && skipUnless("postgres")) ||
        skipUnless(...(options.services ?? [])),
      fn: () => fn(kind),
    });
  }
}

/**
 * Registers `name` once per store kind, each with a fresh migrated store: `[sqlite] name` and
 * `[postgres] name`.
 */
export function forEachStore(
  name: string,
  fn: (db: Db, store: TestStore) => Promise<void>,
  options: { migrate?: boolean; services?: ServiceName[] } = {},
): void {
  forEachStoreKind(name, async (kind) => {
    const store = await freshStore(kind, { migrated: options.migrate !== false });
    try {
      const db = await store.open();
      if (options.migrate !== false) await migrate(db);
      await fn(db, store);
    } finally {
      await store.dispose();
    }
  }, options);
}

/**
 * `forEachStore` for a test file whose tests all start alike: each body gets what `setUp` made on
 * its fresh store, then the store itself.
 */
export function storeTestWith<T>(
  setUp: (db: Db) => Promise<T>,
): (name: string, fn: (made: T, db: Db) => Promise<void>) => void {
  return (name, fn) => forEachStore(name, async (db) => fn(await setUp(db), db));
}

/**
 * `forEachStore` for a test file whose tests all run inside a world that `within` makes on the
 * fresh store and closes after.
 */
export function storeTestIn<T>(
  within: (db: Db, fn: (made: T) => Promise<void>) => Promise<void>,
): (name: string, fn: (made: T) => Promise<void>) => void {
  return (name, fn) => forEachStore(name, (db) => within(db, fn));
}
