import { deepEqual, equal, rejects } from "node:assert/strict";
import { tarHeader, TarReader, TarWriter } from "./tar.ts";

const bytes = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251);

async function writeArchive(path: string, files: { name: string; body: Uint8Array }[]) {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const tar = new TarWriter(file.writable);
  for (const f of files) {
    // One as bytes, the others as streams of uneven chunks, as a database file is read.
    const body = f.body.length < 1000 ? f.body : ReadableStream.from(
      Array.from(
        { length: Math.ceil(f.body.length / 777) },
        (_, i) => f.body.subarray(i * 777, (i + 1) * 777),
      ),
    );
    await tar.add({ name: f.name, size: f.body.length, mode: 0o600, mtime: 1_700_000_000 }, body);
  }
  await tar.finish();
}

async function readArchive(path: string) {
  const reader = new TarReader((await Deno.open(path)).readable);
  const out: { name: string; mode: number; body: Uint8Array }[] = [];
  for (let e = await reader.next(); e; e = await reader.next()) {
    out.push({ name: e.name, mode: e.mode, body: await reader.bytes(e.size) });
  }
  return out;
}

const tar = (args: string[]) => new Deno.Command("tar", { args, stdout: "piped" }).output();

Deno.test("what TarWriter writes, GNU tar lists and unpacks byte for byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = [
      { name: "manifest.json", body: new TextEncoder().encode('{"a":1}') },
      { name: "secrets/key", body: bytes(512, 7) },
      { name: "service.db", body: bytes(100_003, 13) },
      { name: "empty", body: new Uint8Array(0) },
    ];
    await writeArchive(`${dir}/a.tar`, files);
    const listed = new TextDecoder().decode((await tar(["-tvf", `${dir}/a.tar`])).stdout);
    deepEqual(
      listed.trim().split("\n").map((l) => l.split(/\s+/)[0] + " " + l.split(/\s+/).at(-1)),
      [
        "-rw------- manifest.json",
        "-rw------- secrets/key",
        "-rw------- service.db",
        "-rw------- empty",
      ],
    );
    for (const f of files) {
      const out = await tar(["-xOf", `${dir}/a.tar`, f.name]);
      deepEqual(new Uint8Array(out.stdout), f.body, f.name);
    }
    deepEqual(await readArchive(`${dir}/a.tar`), files.map((f) => ({ ...f, mode: 0o600 })));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TarReader reads what GNU tar writes, skipping directories", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/in/secrets`, { recursive: true });
    await Deno.writeFile(`${dir}/in/secrets/k`, bytes(1025, 3));
    await Deno.writeFile(`${dir}/in/db`, bytes(70_000, 5));
    const made = await tar(["--format=ustar", "-cf", `${dir}/g.tar`, "-C", `${dir}/in`, "."]);
    equal(made.code, 0);
    const read = await readArchive(`${dir}/g.tar`);
    deepEqual(
      read.map((f) => [f.name, f.body.length]).sort(),
      [["./db", 70_000], ["./secrets/k", 1025]],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a truncated archive and a damaged header are refused, not read short", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeArchive(`${dir}/a.tar`, [{ name: "service.db", body: bytes(5000, 11) }]);
    const whole = await Deno.readFile(`${dir}/a.tar`);
    await Deno.writeFile(`${dir}/cut.tar`, whole.subarray(0, 3000));
    await rejects(() => readArchive(`${dir}/cut.tar`), /ends inside an entry/);
    const damaged = whole.slice();
    damaged[10] ^= 0xff;
    await Deno.writeFile(`${dir}/bad.tar`, damaged);
    await rejects(() => readArchive(`${dir}/bad.tar`), /checksum/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sizes past 8 GiB take the base-256 form and read back", async () => {
  const size = 9 * 1024 ** 3 + 5;
  const header = tarHeader({ name: "service.db", size, mode: 0o600, mtime: 0 });
  equal(header[124], 0x80);
  const stream = ReadableStream.from([header]);
  const entry = await new TarReader(stream).next();
  equal(entry?.size, size);
});
