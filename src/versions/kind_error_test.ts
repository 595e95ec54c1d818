import { deepEqual, equal, ok } from "node:assert/strict";
import { catalogue, placeholdersOf } from "../errors/mod.ts";
import { kindError } from "./kind_error.ts";
import { PIPELINE_KIND, TEMPLATE_KIND } from "./kinds.ts";
import type { KindCodes } from "./types.ts";

const ID_KEYS = ["pipeline_id", "template_id"];

Deno.test("kindError() fills each kind's own id key and renders every slot without ?", () => {
  for (const kind of [PIPELINE_KIND, TEMPLATE_KIND]) {
    for (const slot of Object.keys(kind.codes) as (keyof KindCodes)[]) {
      const code = kind.codes[slot];
      const names = placeholdersOf(catalogue[code].message);
      const ids = names.filter((n) => ID_KEYS.includes(n));
      deepEqual(ids.filter((n) => n !== `${kind.kind}_id`), [], `${code} names another kind`);
      const rest = Object.fromEntries(
        names.filter((n) => !ID_KEYS.includes(n)).map((n) => [n, `<${n}>`]),
      );
      const id = slot === "duplicate_name" ? null : "the-id";
      const e = kindError(kind, slot, id, rest as never);
      equal(e.code, code);
      ok(!e.message.includes("?"), `${kind.kind} ${slot}: ${e.message}`);
      if (id) equal(e.details[`${kind.kind}_id`], id);
    }
  }
});

Deno.test("kindError() demands what both kinds' messages name, the id aside", () => {
  // @ts-expect-error: not_eligible names a reason
  const noReason = () => kindError(PIPELINE_KIND, "not_eligible", "x", { version: 1, status: "X" });
  const e = kindError(TEMPLATE_KIND, "not_eligible", "t/a", {
    version: 1,
    status: "DRAFT",
    reason: "no",
  });
  equal(e.message, "Version 1 of template t/a is DRAFT and cannot be the current version: no.");
  void noReason;
});
