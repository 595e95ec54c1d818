/**
 * Issue 6's bad-input list and the refusals the other pipeline route tests leave out, on both
 * stores: every rule of the name grammar on its own (with the 200-character, 10-segment and
 * 64-character boundaries accepted), graph defects with their details, unknown node types,
 * malformed parameter declarations, a 10 MB body and non-JSON on create and on save, an If-Match
 * from another pipeline on every route that takes one, bad filters and flags.
 */
import { deepEqual, equal } from "node:assert/strict";
import { bothStores, dql, P, pipe } from "./support/pipeline_client.ts";
import { expectError } from "./support/template_client.ts";

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
  "bad filters and flags are 400 naming the field; a limit above the cap is clamped",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const p = (await req("POST", P, h.author, pipe("flt/a"))).body.data;
      for (
        const [path, field] of [
          [`${P}?limit=0`, "limit"],
          [`${P}?offset=-1`, "offset"],
          [`${P}?limit=ten`, "limit"],
          [`${P}/${p.id}/export?include_templates=maybe`, "include_templates"],
          [`${P}/${p.id}?include_exclusive_draft_templates=2`, "include_exclusive_draft_templates"],
        ] as const
      ) {
        const method = path.includes("include_exclusive") ? "DELETE" : "GET";
        const d = expectError(await req(method, path, h.author), 400, BAD_FIELD);
        equal(d.field, field, path);
      }
      const flag = expectError(
        await req(
          "POST",
          `${P}/${p.id}/release?release_pinned_templates=yes`,
          h.promoter,
          undefined,
          p.body_hash,
        ),
        400,
        BAD_FIELD,
      );
      equal(flag.field, "release_pinned_templates");
      const big = (await req("GET", `${P}?limit=5000`, h.author)).body.data;
      deepEqual(big.pagination, { offset: 0, limit: 200, total: 1, has_more: false });
    });
  },
);
