/**
 * Pipeline authoring over HTTP (spec 2 §4.1 all but execute), on both stores: the lifecycle rows
 * through the routes, and bad input with its codes.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { postRaw } from "./support/harness.ts";
import { bothStores, dql, P, pipe } from "./support/pipeline_client.ts";
import { expectError } from "./support/template_client.ts";

bothStores(
  "pipeline lifecycle over HTTP: create, read, If-Match, release, first write, no-op, discard, restore, switch, purge",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const created = await req(
        "POST",
        P,
        h.author,
        pipe("sales/daily", {
          parameters: { day: { type: "date", required: false } },
          nodes: [
            {
              id: "calc",
              type: "CALCULATOR",
              calculator: { name: "today", writes: { value: "run_day" } },
            },
            dql({ depends_on: ["calc"] }),
          ],
        }),
      );
      equal(created.status, 201, JSON.stringify(created.body));
      const p = created.body.data;
      // The pipeline's release and save calls, by who and over which hash.
      const release = (who: Record<string, string>, hash: string) =>
        req("POST", `${P}/${p.id}/release`, who, undefined, hash);
      const save = (body: unknown, hash?: string) =>
        req("PUT", `${P}/${p.id}`, h.author, body, hash);
      deepEqual([p.version, p.status, p.current_version, p.name], [
        1,
        "DRAFT",
        null,
        "sales/daily",
      ]);
      equal(p.draft.version, 1);
      equal(p.draft.body_hash, p.body_hash);
      ok(p.body_hash.startsWith("sha256:"));

      const read = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      equal(read.parameters.run_day.derived, true, "derived parameters are listed on read");
      equal(read.parameters.day.type, "date");

      const body2 = pipe("sales/daily", { description: "v2" });
      expectError(
        await save(body2),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      const stale = expectError(
        await save(body2, "sha256:" + "0".repeat(64)),
        409,
        "pipeline.version.conflict",
      );
      equal(stale.current_hash, p.body_hash);
      const saved = await save(body2, p.body_hash);
      deepEqual([saved.status, saved.body.data.version, saved.body.data.status], [200, 1, "DRAFT"]);

      // Release needs the promote role; the author is refused, the promoter releases.
      expectError(
        await release(h.author, saved.body.data.body_hash),
        403,
        "auth.role_required",
      );
      const rel = await release(h.promoter, saved.body.data.body_hash);
      deepEqual([rel.status, rel.body.data.status, rel.body.data.current_version], [
        200,
        "RELEASED",
        1,
      ]);
      expectError(
        await release(h.promoter, saved.body.data.body_hash),
        409,
        "pipeline.version.not_draft",
      );

      // Identical body to the release with no draft: nothing written, RELEASED reported.
      const same = await save(body2, rel.body.data.body_hash);
      deepEqual([same.body.data.version, same.body.data.status], [1, "RELEASED"]);
      const v2 = await save(pipe("sales/daily", { description: "v3" }), rel.body.data.body_hash);
      deepEqual([v2.body.data.version, v2.body.data.status, v2.body.data.current_version], [
        2,
        "DRAFT",
        1,
      ]);
      const rel2 = await release(h.promoter, v2.body.data.body_hash);
      equal(rel2.body.data.current_version, 2);

      const versions = (await req("GET", `${P}/${p.id}/versions`, h.author)).body.data.items;
      deepEqual(versions.map((v: { version: number; status: string }) => [v.version, v.status]), [[
        1,
        "RELEASED",
      ], [2, "RELEASED"]]);
      equal((await req("GET", `${P}/${p.id}/versions/1`, h.author)).body.data.description, "v2");
      expectError(
        await req("GET", `${P}/${p.id}/versions/9`, h.author),
        404,
        "pipeline.execution.not_found",
      );

      // Session-only transitions: a key is refused; the author's session acts.
      expectError(
        await req("POST", `${P}/${p.id}/versions/2/discard`, h.key),
        403,
        "auth.session.required",
      );
      const disc = await req("POST", `${P}/${p.id}/versions/2/discard`, h.author);
      deepEqual([disc.status, disc.body.data.current_version], [200, 1]);
      expectError(
        await req("POST", `${P}/${p.id}/versions/2/discard`, h.author),
        409,
        "pipeline.version.not_released",
      );
      expectError(
        await req("POST", `${P}/${p.id}/versions/1/restore`, h.author),
        409,
        "pipeline.version.not_discarded",
      );
      equal(
        (await req("POST", `${P}/${p.id}/versions/2/restore`, h.author)).body.data.current_version,
        2,
      );
      equal(
        (await req("POST", `${P}/${p.id}/current`, h.author, { version: 1 })).body.data
          .current_version,
        1,
      );
      expectError(
        await req("DELETE", `${P}/${p.id}/versions/1`, h.author),
        409,
        "pipeline.version.last_release",
      );
      expectError(
        await req("DELETE", `${P}/${p.id}`, h.author),
        409,
        "pipeline.version.last_release",
      );

      // A draft purged by the draft discard route; its number returns to the pool.
      const d3 = await save(pipe("sales/daily", { description: "v4" }), rel.body.data.body_hash);
      equal(d3.body.data.version, 3);
      expectError(
        await req("POST", `${P}/${p.id}/draft/discard`, h.author),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      equal(
        (await req(
          "POST",
          `${P}/${p.id}/draft/discard`,
          h.author,
          undefined,
          d3.body.data.body_hash,
        ))
          .status,
        204,
      );

      // Entity delete of a sole draft.
      const lone = (await req("POST", P, h.author, pipe("sales/lone"))).body.data;
      const del = await req("DELETE", `${P}/${lone.id}`, h.author);
      deepEqual(del.body.data, {
        purged: true,
        exclusive_draft_templates: [],
        exclusive_draft_templates_purged: false,
      });
      expectError(await req("GET", `${P}/${lone.id}`, h.author), 404, "pipeline.not_found");
    });
  },
);

bothStores(
  "pipeline bad input answers its code: names, graph, node types, parameters, size, JSON, foreign If-Match",
  async (withWorld) => {
    await withWorld(async ({ s, h, req }) => {
      const nameCase = async (name: string, reason: string) => {
        const d = expectError(
          await req("POST", P, h.author, pipe(name)),
          400,
          "pipeline.validation.name_invalid",
        );
        equal(d.reason, reason, name);
      };
      await nameCase("flat", "folder_required");
      await nameCase("Upper/case", "grammar");
      await nameCase("a//b", "grammar");
      await nameCase("-a/b", "grammar");
      await nameCase(`a/${"b".repeat(198)}`, "grammar");
      await nameCase(Array.from({ length: 11 }, (_, i) => `s${i}`).join("/"), "grammar");
      equal(
        (await req("POST", P, h.author, pipe(`a/${"b".repeat(62)}/${"c".repeat(63)}`))).status,
        201,
      );

      const cyc = expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/cycle", {
            nodes: [
              dql({ id: "a", depends_on: ["b"], output: { target: "tempdb", table: "t" } }),
              dql({ id: "b", depends_on: ["a"] }),
            ],
          }),
        ),
        400,
        "pipeline.validation.cycle_detected",
      );
      ok(Array.isArray(cyc.cycle_path));
      const two = expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/callers", {
            nodes: [dql({ id: "a" }), dql({ id: "b" })],
          }),
        ),
        400,
        "pipeline.validation.graph_invalid",
      );
      equal(two.reason, "multiple_caller_nodes");
      expectError(
        await req("POST", P, h.author, pipe("bad/type", { nodes: [dql({ type: "PYTHON" })] })),
        400,
        "pipeline.validation.node_invalid",
      );
      expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/params", { parameters: { n: { type: "integer", default: "x" } } }),
        ),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/unknown", { nodes: [dql({ depends_on: ["zz"] })] }),
        ),
        400,
        "pipeline.validation.graph_invalid",
      );

      const big = JSON.stringify(pipe("bad/big", { description: "x".repeat(10 * 1024 * 1024) }));
      deepEqual(await postRaw(s, P, h.author, "application/json", big), [
        413,
        "request.body_too_large",
      ]);
      deepEqual(await postRaw(s, P, h.author, "application/json", "{not json"), [
        400,
        "request.malformed_json",
      ]);

      const a = (await req("POST", P, h.author, pipe("ok/a"))).body.data;
      const b = (await req("POST", P, h.author, pipe("ok/b"))).body.data;
      expectError(
        await req("PUT", `${P}/${a.id}`, h.author, pipe("ok/a"), b.body_hash),
        409,
        "pipeline.version.conflict",
      );
      const dup = await req("PUT", `${P}/${a.id}`, h.author, pipe("ok/b"), a.body_hash);
      expectError(dup, 409, "pipeline.validation.duplicate_name");
    });
  },
);

bothStores(
  "a pipeline whose only release was discarded still reads, with current_version null",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const p = (await req("POST", P, h.author, pipe("sales/once"))).body.data;
      const rel = await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash);
      equal(rel.status, 200, JSON.stringify(rel.body));
      const disc = await req("POST", `${P}/${p.id}/versions/1/discard`, h.author);
      deepEqual([disc.status, disc.body.data.current_version], [200, null]);
      const read = await req("GET", `${P}/${p.id}`, h.author);
      equal(read.status, 200, JSON.stringify(read.body));
      deepEqual(
        [read.body.data.id, read.body.data.name, read.body.data.current_version],
        [p.id, "sales/once", null],
      );
      deepEqual([read.body.data.version, read.body.data.status], [null, null]);
      // The discarded version itself stays readable by number.
      equal((await req("GET", `${P}/${p.id}/versions/1`, h.author)).body.data.status, "DISCARDED");
    });
  },
);
