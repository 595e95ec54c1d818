/**
 * Issue 6's bad-input list and the refusals the other pipeline route tests leave out, on both
 * stores: every rule of the name grammar on its own (with the 200-character, 10-segment and
 * 64-character boundaries accepted), graph defects with their details, unknown node types,
 * malformed parameter declarations, a 10 MB body and non-JSON on create and on save, an If-Match
 * from another pipeline on every route that takes one, an ineligible switch, unknown versions;
 * and the routes the others only refuse: a draft purged by version, export with its templates;
 * concurrent saves over HTTP; an export carried between a SQLite and a PostgreSQL instance.
 */
import { deepEqual, equal } from "node:assert/strict";
import { bothStores, dql, P, pipe } from "./pipeline_client.ts";
import { skipUnless } from "./services.ts";
import { create, expectError, T, withWorld, type World } from "./template_client.ts";

const NAME = "pipeline.validation.name_invalid";
const BAD_FIELD = "pipeline.execution.invalid_parameter_type";

/** Valid segments joined to exactly `length` characters. */
function nameOf(length: number): string {
  const segments = [];
  let left = length;
  while (left > 0) {
    const take = Math.min(64, left - (segments.length === 0 ? 0 : 1));
    segments.push("s".repeat(take));
    left -= take + (segments.length === 1 ? 0 : 1);
  }
  return segments.join("/");
}

bothStores(
  "names: each grammar rule refused on its own, each boundary accepted",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      equal(nameOf(200).length, 200);
      const refused: [string, string][] = [
        ["orders", "folder_required"],
        [nameOf(201), "grammar"],
        [Array.from({ length: 11 }, (_, i) => `s${i}`).join("/"), "grammar"],
        [`a/${"x".repeat(65)}`, "grammar"],
        ["Sales/orders", "grammar"],
        ["a/_b", "grammar"],
        ["a/.b", "grammar"],
        ["-a/b", "grammar"],
        ["a/b c", "grammar"],
        ["a/b$", "grammar"],
        ["a/ü", "grammar"],
        ["a//b", "grammar"],
        ["/a/b", "grammar"],
        ["a/b/", "grammar"],
        ["", "grammar"],
      ];
      for (const [name, reason] of refused) {
        const d = expectError(await req("POST", P, h.author, pipe(name)), 400, NAME);
        equal(d.reason, reason, JSON.stringify(name));
      }
      expectError(await req("POST", P, h.author, pipe(5 as unknown as string)), 400, BAD_FIELD);
      for (
        const name of [
          nameOf(200),
          Array.from({ length: 10 }, (_, i) => `s${i}`).join("/"),
          `a/${"x".repeat(64)}`,
          "0/a_b.c-d",
        ]
      ) {
        const made = await req("POST", P, h.author, pipe(name));
        equal(made.status, 201, `${name}: ${JSON.stringify(made.body)}`);
        equal(made.body.data.name, name);
      }
      // A save that renames checks the grammar too.
      const p = (await req("POST", P, h.author, pipe("ren/a"))).body.data;
      const d = expectError(
        await req("PUT", `${P}/${p.id}`, h.author, pipe("flat"), p.body_hash),
        400,
        NAME,
      );
      equal(d.reason, "folder_required");
    });
  },
);

bothStores(
  "graphs and nodes: cycles with their path, duplicate ids, unknown types and fields",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const staged = (id: string, deps: string[]) =>
        dql({ id, depends_on: deps, output: { target: "tempdb", table: id } });
      const cycle = (nodes: unknown[]) => req("POST", P, h.author, pipe("bad/cycle", { nodes }));
      const three = expectError(
        await cycle([
          staged("a", ["c"]),
          staged("b", ["a"]),
          staged("c", ["b"]),
          dql({ id: "out" }),
        ]),
        400,
        "pipeline.validation.cycle_detected",
      );
      deepEqual(new Set(three.cycle_path as string[]), new Set(["a", "b", "c"]));
      equal((three.cycle_path as string[]).length, 4, "the path closes on its first node");
      equal((three.cycle_path as string[])[0], (three.cycle_path as string[])[3]);
      const self = expectError(
        await cycle([dql({ id: "a", depends_on: ["a"] })]),
        400,
        "pipeline.validation.cycle_detected",
      );
      deepEqual(self.cycle_path, ["a", "a"]);
      const dup = expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/dup", { nodes: [staged("a", []), dql({ id: "a" })] }),
        ),
        400,
        "pipeline.validation.graph_invalid",
      );
      equal(dup.reason, "duplicate_node_id");
      const unknown = expectError(
        await req("POST", P, h.author, pipe("bad/dep", { nodes: [dql({ depends_on: ["zz"] })] })),
        400,
        "pipeline.validation.graph_invalid",
      );
      equal(unknown.reason, "unknown_dependency");
      for (const type of ["PYTHON", "dql", "", 7]) {
        const d = expectError(
          await req("POST", P, h.author, pipe("bad/type", { nodes: [dql({ type })] })),
          400,
          "pipeline.validation.node_invalid",
        );
        deepEqual([d.node_id, d.field], ["a", "type"], JSON.stringify(type));
      }
      const badId = expectError(
        await req("POST", P, h.author, pipe("bad/id", { nodes: [dql({ id: "Bad-Id" })] })),
        400,
        "pipeline.validation.node_invalid",
      );
      equal(badId.field, "id");
      expectError(
        await req("POST", P, h.author, pipe("bad/nodes", { nodes: "a" })),
        400,
        BAD_FIELD,
      );
    });
  },
);

bothStores("parameter declarations of the wrong type name the field", async (withWorld) => {
  await withWorld(async ({ h, req }) => {
    for (
      const [parameters, field] of [
        [{ n: { type: "integer", default: "x" } }, "parameters.n.default"],
        [{ n: { type: "money" } }, "parameters.n.type"],
        [{ n: { type: "string", required: "yes" } }, "parameters.n.required"],
        [{ n: { type: "integer", min: "1" } }, "parameters.n.min"],
        [{ n: { type: "date", default: "31/12/2024" } }, "parameters.n.default"],
        [["n"], "parameters"],
      ] as const
    ) {
      const d = expectError(
        await req("POST", P, h.author, pipe("bad/params", { parameters })),
        400,
        BAD_FIELD,
      );
      equal(d.field, field, JSON.stringify(parameters));
    }
    const ok = await req(
      "POST",
      P,
      h.author,
      pipe("ok/params", { parameters: { n: { type: "integer", default: 3, min: 1 } } }),
    );
    equal(ok.status, 201, JSON.stringify(ok.body));
  });
});

bothStores(
  "a 10 MB body and non-JSON are refused on create and on save; nothing is written",
  async (withWorld) => {
    await withWorld(async ({ s, h, req }) => {
      const p = (await req("POST", P, h.author, pipe("size/a"))).body.data;
      const huge = JSON.stringify(pipe("size/a", { description: "x".repeat(10 * 1024 * 1024) }));
      for (
        const [method, path, headers] of [
          ["POST", P, h.author],
          ["PUT", `${P}/${p.id}`, { ...h.author, "If-Match": p.body_hash }],
        ] as const
      ) {
        const send = (body: string, type: string) =>
          s.fetch(path, { method, headers: { ...headers, "content-type": type }, body });
        const big = await send(huge, "application/json");
        deepEqual([big.status, (await big.json()).error.code], [413, "request.body_too_large"]);
        const text = await send("name=size/a", "text/plain");
        deepEqual(
          [text.status, (await text.json()).error.code],
          [415, "request.unsupported_media_type"],
        );
        const junk = await send('{"name": "size/a",', "application/json");
        deepEqual([junk.status, (await junk.json()).error.code], [400, "request.malformed_json"]);
      }
      const read = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      deepEqual([read.version, read.body_hash], [1, p.body_hash]);
      equal((await req("GET", P, h.author)).body.data.pagination.total, 1);
    });
  },
);

bothStores(
  "an If-Match from another pipeline is stale on save, release and draft discard",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const a = (await req("POST", P, h.author, pipe("im/a"))).body.data;
      const b = (await req("POST", P, h.author, pipe("im/b"))).body.data;
      for (
        const [method, path, who, body] of [
          ["PUT", `${P}/${a.id}`, h.author, pipe("im/a", { description: "x" })],
          ["POST", `${P}/${a.id}/release`, h.promoter, undefined],
          ["POST", `${P}/${a.id}/draft/discard`, h.author, undefined],
        ] as const
      ) {
        const d = expectError(
          await req(method, path, who, body, b.body_hash),
          409,
          "pipeline.version.conflict",
        );
        deepEqual([d.current_hash, d.if_match], [a.body_hash, b.body_hash], path);
        equal(typeof d.author, "string");
      }
      equal((await req("GET", `${P}/${a.id}`, h.author)).body.data.body_hash, a.body_hash);
    });
  },
);

bothStores(
  "switch, discard, restore and purge name unknown and ineligible versions",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const p = (await req("POST", P, h.author, pipe("sw/a"))).body.data;
      const rel = (await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash))
        .body.data;
      const d2 = (await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("sw/a", { description: "2" }),
        rel
          .body_hash,
      )).body.data;
      await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, d2.body_hash);
      await req("POST", `${P}/${p.id}/versions/1/discard`, h.author);
      const ne = expectError(
        await req("POST", `${P}/${p.id}/current`, h.author, { version: 1 }),
        409,
        "pipeline.version.not_eligible",
      );
      equal(ne.version, 1);
      for (
        const [method, path, body] of [
          ["POST", `${P}/${p.id}/current`, { version: 9 }],
          ["POST", `${P}/${p.id}/versions/9/discard`, undefined],
          ["POST", `${P}/${p.id}/versions/9/restore`, undefined],
          ["DELETE", `${P}/${p.id}/versions/9`, undefined],
          ["GET", `${P}/${p.id}/versions/9/checks`, undefined],
        ] as const
      ) {
        expectError(await req(method, path, h.author, body), 404, "pipeline.execution.not_found");
      }
      expectError(
        await req("POST", `${P}/${p.id}/current`, h.author, { version: "2" }),
        400,
        BAD_FIELD,
      );
      const missing = crypto.randomUUID();
      expectError(await req("GET", `${P}/${missing}`, h.author), 404, "pipeline.not_found");
      expectError(await req("GET", `${P}/not-a-uuid`, h.author), 404, "pipeline.not_found");
    });
  },
);

bothStores(
  "a draft purged by version gives its number back; export carries pinned templates unless told not to",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const t = (await req(
        "POST",
        T,
        h.author,
        create("ex/base", "SELECT 1 AS x", {
          dialect: "DUCKDB",
        }),
      )).body.data;
      await req("POST", `${T}/release`, h.promoter, { name: "ex/base" }, t.body_hash);
      const node = {
        id: "a",
        type: "DQL",
        source: "tempdb",
        template: { id: "ex/base", version: 1 },
      };
      const p = (await req("POST", P, h.author, pipe("ex/p", { nodes: [node] }))).body.data;
      const rel = (await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash))
        .body.data;
      const d2 = (await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("ex/p", { nodes: [node], description: "2" }),
        rel.body_hash,
      )).body.data;
      equal(d2.version, 2);
      equal((await req("DELETE", `${P}/${p.id}/versions/2`, h.author)).status, 204);
      const after = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      deepEqual([after.version, after.status, after.draft], [1, "RELEASED", null]);
      const d2again = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("ex/p", { nodes: [node], description: "again" }),
        rel.body_hash,
      );
      equal(d2again.body.data.version, 2, "the purged number returns to the pool");

      const out = (await req("GET", `${P}/${p.id}/export`, h.author)).body.data;
      deepEqual([out.pipeline.version, out.manifest.template_count], [1, 1]);
      deepEqual(
        out.templates.map((x: { id: string; version: number; body: string }) => [
          x.id,
          x.version,
          x.body,
        ]),
        [["ex/base", 1, "SELECT 1 AS x"]],
      );
      const bare = (await req("GET", `${P}/${p.id}/export?include_templates=false`, h.author)).body
        .data;
      deepEqual([bare.templates, bare.manifest.template_count], [[], 0]);
    });
  },
);

bothStores(
  "concurrent saves over HTTP with one If-Match: exactly one wins, the rest are stale",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const p = (await req("POST", P, h.author, pipe("race/a"))).body.data;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          req(
            "PUT",
            `${P}/${p.id}`,
            h.author,
            pipe("race/a", { description: `w${i}` }),
            p.body_hash,
          )),
      );
      const won = answers.filter((a) => a.status === 200);
      equal(won.length, 1, JSON.stringify(answers.map((a) => a.status)));
      for (const lost of answers.filter((a) => a.status !== 200)) {
        equal(
          expectError(lost, 409, "pipeline.version.conflict").current_hash,
          won[0].body.data.body_hash,
        );
      }
      const read = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      deepEqual([read.version, read.body_hash], [1, won[0].body.data.body_hash]);
    });
  },
);

Deno.test({
  name: "export from SQLite imports into PostgreSQL and back byte for byte: same id, number, hash",
  ignore: skipUnless("postgres"),
  async fn() {
    const exportOf = async (w: World, id: string) =>
      (await w.req("GET", `${P}/${id}/export`, w.h.author)).body.data.pipeline;
    let fromSqlite: Record<string, unknown> = {};
    await withWorld(async (w) => {
      const p = (await w.req("POST", P, w.h.author, pipe("x/one", { description: "ü €" }))).body
        .data;
      await w.req("POST", `${P}/${p.id}/release`, w.h.promoter, undefined, p.body_hash);
      fromSqlite = await exportOf(w, p.id);
    }, "sqlite");
    let fromPostgres: Record<string, unknown> = {};
    await withWorld(async (w) => {
      const imported = await w.req("POST", `${P}/import`, w.h.author, fromSqlite);
      equal(imported.status, 201, JSON.stringify(imported.body));
      fromPostgres = await exportOf(w, imported.body.data.id);
    }, "postgres");
    const bytes = (x: Record<string, unknown>) => JSON.stringify({ ...x, released_at: null });
    equal(bytes(fromPostgres), bytes(fromSqlite));
    await withWorld(async (w) => {
      const back = await w.req("POST", `${P}/import`, w.h.author, fromPostgres);
      equal(back.status, 201, JSON.stringify(back.body));
      equal(bytes(await exportOf(w, back.body.data.id)), bytes(fromSqlite));
    }, "sqlite");
  },
});
