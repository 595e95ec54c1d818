/**
 * What `main.ts backup` and `main.ts restore` refuse, each with one line and exit code 2, and
 * what they leave behind then: never an overwritten file, never a half-restored directory.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { testSecrets } from "./support/harness.ts";
import { run } from "./support/server_process.ts";

const tarEntry = async (file: string, name: string) =>
  new TextDecoder().decode(
    (await new Deno.Command("tar", { args: ["-xOf", file, name], stdout: "piped" }).output())
      .stdout,
  );

async function absent(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => false, () => true);
}

Deno.test("backup refuses a missing secret, an existing file, PostgreSQL and a missing store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_backup_" });
  try {
    const data = { SERVICE_DATA_DIR: `${dir}/data` };
    equal((await run(["migrate"], data)).code, 0);
    // `migrate` generates no secret: without them the backup could never be opened.
    const bare = await run(["backup", "--to", `${dir}/x.tar`], data);
    equal(bare.code, 2);
    match(bare.stderr, /^backup refused: jwt_secret is neither set \(SERVICE_JWT_SECRET\)/);
    ok(await absent(`${dir}/x.tar`));

    const secrets = testSecrets();
    const first = await run(["backup", "--to", `${dir}/x.tar`], { ...data, ...secrets });
    equal(first.code, 0, first.stderr);
    const manifest = JSON.parse(await tarEntry(`${dir}/x.tar`, "manifest.json"));
    deepEqual(manifest.secrets.encryption_key, {
      entry: "secrets/encryption_key",
      from: "environment",
    });
    equal(
      (await tarEntry(`${dir}/x.tar`, "secrets/jwt_secret")).trim(),
      secrets.SERVICE_JWT_SECRET,
    );
    for (const secret of Object.values(secrets)) {
      ok(!(first.stdout + first.stderr).includes(secret), "no secret in the output");
    }

    const kept = await Deno.readFile(`${dir}/x.tar`);
    const again = await run(["backup", "--to", `${dir}/x.tar`], { ...data, ...secrets });
    equal(again.code, 2);
    match(again.stderr, /x\.tar exists; name a new file, or pass --force/);
    deepEqual(await Deno.readFile(`${dir}/x.tar`), kept);
    const forced = await run(["backup", "--to", `${dir}/x.tar`, "--force"], {
      ...data,
      ...secrets,
    });
    equal(forced.code, 0, forced.stderr);
    equal((await Deno.stat(`${dir}/x.tar`)).mode! & 0o777, 0o600);
    deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(), [
      "data",
      "x.tar",
    ]);

    const nowhere = await run(["backup", "--to", `${dir}/no/such/dir/x.tar`], {
      ...data,
      ...secrets,
    });
    equal(nowhere.code, 2);
    match(nowhere.stderr, /no\/such\/dir is not a directory; create it first/);

    const pg = await run(["backup", "--to", `${dir}/y.tar`], {
      SERVICE_STORE_URL: "postgres://postgres@127.0.0.1:5432/postgres",
      ...secrets,
    });
    equal(pg.code, 2);
    match(pg.stderr, /backup is for the embedded store; .* use pg_dump and pg_restore/);
    const none = await run(["backup", "--to", `${dir}/y.tar`], {
      SERVICE_DATA_DIR: `${dir}/nothing`,
      ...secrets,
    });
    equal(none.code, 2);
    match(none.stderr, /no database at .*nothing\/service\.db/);
    ok(await absent(`${dir}/nothing`), "a refused backup creates no store");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("restore refuses a non-empty directory and a damaged, cut or foreign file, leaving nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_restore_" });
  try {
    const secrets = testSecrets();
    const data = { SERVICE_DATA_DIR: `${dir}/data` };
    equal((await run(["migrate"], data)).code, 0);
    const file = `${dir}/b.tar`;
    equal((await run(["backup", "--to", file], { ...data, ...secrets })).code, 0);

    const busy = await run(["restore", "--from", file], data);
    equal(busy.code, 2);
    match(busy.stderr, /^restore refused: the data directory .*data is not empty/);
    ok(!(await absent(`${dir}/data/service.db`)), "the directory is left as it was");

    const whole = await Deno.readFile(file);
    const damaged = whole.slice();
    damaged[whole.length - 1024 - 600] ^= 0xff; // inside service.db, the last entry
    await Deno.writeFile(`${dir}/damaged.tar`, damaged);
    await Deno.writeFile(`${dir}/cut.tar`, whole.subarray(0, Math.floor(whole.length / 2)));
    const foreign = await new Deno.Command("tar", {
      args: ["-cf", `${dir}/foreign.tar`, "-C", `${dir}/data`, "service.db"],
    }).output();
    equal(foreign.code, 0);
    for (
      const [name, why] of [
        ["damaged.tar", /does not match its manifest/],
        ["cut.tar", /ends inside an entry \(truncated file\?\)/],
        ["foreign.tar", /does not begin with a manifest\.json/],
        ["missing.tar", /missing\.tar cannot be read/],
      ] as const
    ) {
      const target = `${dir}/restored`;
      const out = await run(["restore", "--from", `${dir}/${name}`], { SERVICE_DATA_DIR: target });
      equal(out.code, 2, name);
      match(out.stderr, why, name);
      match(out.stderr, /nothing was left in .*restored$/m, name);
      ok(await absent(target), `${name}: the directory it made is gone`);
    }

    // An empty directory that exists (a mount point, say) stays, emptied again.
    await Deno.mkdir(`${dir}/mount`);
    const out = await run(["restore", "--from", `${dir}/damaged.tar`], {
      SERVICE_DATA_DIR: `${dir}/mount`,
    });
    equal(out.code, 2);
    deepEqual(await Array.fromAsync(Deno.readDir(`${dir}/mount`)), []);

    // A store a newer build migrated: this build refuses to start on it, so restore refuses too.
    const newer = { SERVICE_DATA_DIR: `${dir}/newer` };
    equal((await run(["migrate"], newer)).code, 0);
    const db = new DatabaseSync(`${dir}/newer/service.db`);
    db.exec(
      "INSERT INTO schema_migrations VALUES (9999, '9999_from_the_future.sql', 'sha256:x', '2030-01-01')",
    );
    db.close();
    equal((await run(["backup", "--to", `${dir}/newer.tar`], { ...newer, ...secrets })).code, 0);
    const future = await run(["restore", "--from", `${dir}/newer.tar`], {
      SERVICE_DATA_DIR: `${dir}/restored`,
    });
    equal(future.code, 2);
    match(
      future.stderr,
      /9999_from_the_future\.sql, which this build does not ship.*nothing was left/,
    );
    ok(await absent(`${dir}/restored`));

    // The good file, with no secret in the environment: the backup's become files.
    const ok1 = await run(["restore", "--from", file], { SERVICE_DATA_DIR: `${dir}/mount` });
    equal(ok1.code, 0, ok1.stderr);
    for (
      const [name, variable] of [["jwt_secret", "SERVICE_JWT_SECRET"], [
        "encryption_key",
        "SERVICE_ENCRYPTION_KEY",
      ]] as const
    ) {
      const path = `${dir}/mount/secrets/${name}`;
      equal((await Deno.readTextFile(path)).trim(), secrets[variable]);
      equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    }
    const migrated = await run(["migrate"], { SERVICE_DATA_DIR: `${dir}/mount` });
    match(migrated.stdout, /database is up to date/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
