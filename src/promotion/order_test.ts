import { deepEqual } from "node:assert/strict";
import type { VerifiedImport } from "../pipelines/mod.ts";
import { orderPipelines, orderTemplates } from "./order.ts";

const t = (name: string, version: number, imports: [string, number][] = []) => ({
  name,
  payload: {
    id: name,
    version,
    body: "",
    body_hash: "",
    imports: imports.map(([id, v]) => ({ id, version: v, alias: id.replace("/", "_") })),
  },
});

Deno.test("templates come out imported-first, stable otherwise", () => {
  const out = orderTemplates([
    t("lib/top", 1, [["lib/mid", 2]]),
    t("lib/x", 1),
    t("lib/mid", 2, [["lib/base", 1]]),
    t("lib/base", 1),
  ]);
  deepEqual(out.map((x) => x.name), ["lib/base", "lib/mid", "lib/top", "lib/x"]);
});

Deno.test("pipelines come out children first, a pin outside the batch ignored", () => {
  const p = (id: string, children: string[]) =>
    ({
      payload: { id },
      body: { name: `f/${id}`, nodes: children.map((c) => ({ id: c, pipeline: { id: c } })) },
    }) as unknown as VerifiedImport;
  const out = orderPipelines([p("root", ["mid", "outside"]), p("mid", ["leaf"]), p("leaf", [])]);
  deepEqual(out.map((x) => x.payload.id), ["leaf", "mid", "root"]);
});
