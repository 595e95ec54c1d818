import { deepEqual, equal, ok } from "node:assert/strict";
import { catalogue } from "../errors/mod.ts";
import { PIPELINE_KIND, TEMPLATE_KIND } from "./kinds.ts";
import { admits, eligibleForPointer, rule, TRANSITIONS } from "./transitions.ts";
import type { KindCodes } from "./types.ts";

Deno.test("every refusal code of both kinds is catalogued with the status of spec 2 §7", () => {
  const expected: Record<keyof KindCodes, number> = {
    not_found: 404,
    version_not_found: 404,
    conflict: 409,
    not_draft: 409,
    not_released: 409,
    not_discarded: 409,
    not_eligible: 409,
    pinned: 409,
    last_release: 409,
    duplicate_name: 409,
  };
  for (const k of [PIPELINE_KIND, TEMPLATE_KIND]) {
    for (const [refusal, status] of Object.entries(expected)) {
      const code = k.codes[refusal as keyof KindCodes];
      ok(code.startsWith(`${k.kind}.`), code);
      equal(catalogue[code].status, status, code);
    }
  }
  equal(catalogue["pipeline.authoring.disabled"].status, 403);
  equal(catalogue["pipeline.execution.invalid_parameter_type"].status, 400);
  // The codes the spec names for each kind where they differ from the pattern.
  equal(PIPELINE_KIND.codes.version_not_found, "pipeline.execution.not_found");
  equal(TEMPLATE_KIND.codes.pinned, "template.in_use");
});

Deno.test("the table's rows: triggers, starting states and refusals of spec 2 §3.1", () => {
  deepEqual(
    TRANSITIONS.map((r) => `${r.id}: ${r.from.join("|")} → ${r.to} / ${r.refusal}`),
    [
      "create: none → DRAFT / null",
      "update.first_write: RELEASED → DRAFT / conflict",
      "update.identical: RELEASED → unchanged / conflict",
      "update.later_write: DRAFT → DRAFT / conflict",
      "release: DRAFT → RELEASED / not_draft",
      "discard: RELEASED → DISCARDED / not_released",
      "restore: DISCARDED → RELEASED / not_discarded",
      "purge_draft: DRAFT → deleted / not_draft",
      "purge_version: DRAFT → deleted / last_release",
      "switch_current: RELEASED|DRAFT → pointer / not_eligible",
      "delete: DRAFT → entity_purged / last_release",
    ],
  );
  // Only the If-Match guarded rows carry the hash guard effect, and the other way round.
  for (const r of TRANSITIONS) {
    equal((r.effects as readonly string[]).includes("hash_guard"), r.precondition, r.id);
  }
});

Deno.test("admits() applies the posture: only switch survives hardening, and only for RELEASED", () => {
  const survivors = TRANSITIONS.filter((r) => r.hardened !== "refused").map((r) => r.id);
  deepEqual(survivors, ["switch_current"]);
  const sw = rule("switch_current");
  equal(admits(sw, "RELEASED", "hardened"), true);
  equal(admits(sw, "DRAFT", "hardened"), false);
  equal(admits(sw, "DRAFT", "development"), true);
  equal(admits(sw, "DISCARDED", "development"), false);
  equal(admits(rule("discard"), "RELEASED", "development"), true);
  equal(admits(rule("discard"), "DRAFT", "development"), false);
  equal(admits(rule("restore"), "DISCARDED", "development"), true);
  equal(admits(rule("purge_version"), "RELEASED", "development"), false);
});

Deno.test("eligibleForPointer(): RELEASED always, DRAFT only in development, DISCARDED never", () => {
  deepEqual(
    (["RELEASED", "DRAFT", "DISCARDED"] as const).map((s) => [
      eligibleForPointer(s, "development"),
      eligibleForPointer(s, "hardened"),
    ]),
    [[true, true], [true, false], [false, false]],
  );
});
