import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { storeTestWith } from "../../../tests/support/stores.ts";
import { newId } from "../../lib/ids.ts";
import type { Db } from "../../store/mod.ts";
import { addUser, service } from "../../workspaces/test_fixtures.ts";
import {
  attachColumnFacts,
  attachTableFacts,
  checkColumnDrift,
  checkTableDrift,
  columnFingerprint,
  type FactActor,
  factsForDatasource,
  type FactViewer,
  listFacts,
  recordFact,
  type RecordFactInput,
  retireFact,
} from "./mod.ts";
import { refuses } from "../../../tests/support/refusals.ts";

const DS1 = { id: newId(), name: "warehouse" };
const DS2 = { id: newId(), name: "other" };
const COLUMNS = [{ name: "id", type: "bigint" }, { name: "amount", type: "decimal" }];

/**
 * Two workspaces, A and B, both seeing DS1; only A sees DS2. `record` files a fact from A
 * (on DS1 unless told), recorded via the API unless the input says otherwise.
 */
async function setUp(db: Db) {
  const svc = service(db);
  const root = await addUser(db, "root@x.example", { isAdmin: true });
  await svc.create(root, { name: "ws-a" });
  await svc.create(root, { name: "ws-b" });
  const a = (await svc.get("ws-a"))!.id;
  const b = (await svc.get("ws-b"))!.id;
  const actorA: FactActor = { workspaceId: a, userId: root.userId };
  const actorB: FactActor = { workspaceId: b, userId: root.userId };
  const viewA: FactViewer = { workspaceId: a, visibleDatasourceIds: [DS1.id, DS2.id] };
  const viewB: FactViewer = { workspaceId: b, visibleDatasourceIds: [DS1.id] };
  const seeA = [DS1.id, DS2.id];
  const record = (input: RecordFactInput, datasource = DS1) =>
    recordFact(db, actorA, datasource, seeA, { recorded_via: "api", ...input });
  return { actorA, actorB, viewA, viewB, seeA, seeB: [DS1.id], record };
}

const factsTest = storeTestWith(setUp);

Deno.test("columnFingerprint() ignores column order and moves on name or type changes", () => {
  const base = columnFingerprint(COLUMNS);
  equal(base, columnFingerprint([...COLUMNS].reverse()));
  ok(base.startsWith("sha256:"));
  notEqual(base, columnFingerprint([{ name: "id", type: "string" }, COLUMNS[1]]));
  notEqual(base, columnFingerprint([COLUMNS[0]]));
  notEqual(base, columnFingerprint([...COLUMNS, { name: "x", type: "date" }]));
});

factsTest(
  "recordFact() applies the scope and trust rules and validates fields",
  async ({ viewA, record }, db) => {
    const rule = await record({
      kind: "definition",
      fact: "revenue excludes refunds",
      trust: "verified",
      recorded_via: "tool:semantics_record",
    });
    deepEqual([rule.scope, rule.trust], ["WORKSPACE", "asserted"]);
    const window = await record({
      kind: "window",
      fact: "data from 2020 on",
      trust: "observed",
    });
    deepEqual([window.scope, window.trust], ["DATASOURCE", "observed"]);

    const bad: [Record<string, unknown>, string][] = [
      [{ kind: "definition", scope: "DATASOURCE" }, "scope"],
      [{ kind: "sampling", scope: "WORKSPACE" }, "scope"],
      [{ kind: "unit", scope: "GLOBAL" }, "scope"],
      [{ kind: "Unit" }, "kind"],
      [{ kind: undefined }, "kind"],
      [{ kind: "unit", trust: "stale" }, "trust"],
      [{ kind: "unit", fact: "" }, "fact"],
      [{ kind: "unit", fact: "x".repeat(4001) }, "fact"],
      [{ kind: "unit", recorded_via: undefined }, "recorded_via"],
      [{ kind: "unit", column: "c" }, "column"],
      [{ kind: "window", table: "t" }, "table"],
      [{ kind: "unit", source_pipeline: { id: 1 } }, "source_pipeline"],
    ];
    for (const [over, field] of bad) {
      await refuses(
        record({ fact: "f", ...over }),
        "pipeline.execution.invalid_parameter_type",
        400,
        { field },
      );
    }
    await refuses(
      record({ kind: "unit", fact: "f" }, { id: newId(), name: "hidden" }),
      "datasource.not_found",
      404,
    );
    equal((await listFacts(db, viewA)).length, 2);
  },
);

factsTest(
  "facts are served by visibility, with conflicts and readable pipelines",
  async ({ actorA, viewA, viewB, seeA, record }, db) => {
    const pipeline = { id: newId(), name: "daily_revenue" };
    const shared = await record({
      kind: "unit",
      fact: "amount is in cents",
      evidence_summary: "max(amount) = 129900",
      source_pipeline: pipeline,
      table: "orders",
      column: "amount",
    });
    await record({ kind: "preference", fact: "prefer net amounts" });
    await record({ kind: "unit", fact: "x" }, DS2);

    const forA = await listFacts(db, viewA, DS1.id);
    equal(forA.length, 2);
    const servedA = forA.find((f) => f.id === shared.id)!;
    deepEqual(servedA, {
      id: shared.id,
      scope: "DATASOURCE",
      kind: "unit",
      fact: "amount is in cents",
      trust: "asserted",
      evidence_summary: "max(amount) = 129900",
      recorded_via: "api",
      recorded_at: shared.recorded_at,
      from_this_workspace: true,
      source_pipeline: pipeline,
      conflict: false,
    });

    const forB = await listFacts(db, viewB);
    deepEqual(forB.map((f) => [f.id, f.from_this_workspace, "source_pipeline" in f]), [
      [shared.id, false, false],
    ]);
    const canRead = { ...viewB, canReadPipeline: (id: string) => id === pipeline.id };
    deepEqual((await listFacts(db, canRead))[0].source_pipeline, pipeline);

    const rival = await record({
      kind: "unit",
      fact: "amount is in euros",
      table: "orders",
      column: "amount",
    });
    const conflicted = (await listFacts(db, viewA, DS1.id)).filter((f) => f.kind === "unit");
    deepEqual(conflicted.map((f) => f.conflict), [true, true]);
    await retireFact(db, actorA, seeA, rival.id);
    const after = (await listFacts(db, viewA, DS1.id)).filter((f) => f.kind === "unit");
    deepEqual(after.map((f) => [f.id, f.conflict]), [[shared.id, false]]);

    const ds = await factsForDatasource(db, viewA, DS1);
    deepEqual([ds.facts.length, ds.definitions.map((f) => f.kind)], [0, ["preference"]]);
    deepEqual(await factsForDatasource(db, viewB, DS1), { facts: [], definitions: [] });
  },
);

factsTest(
  "retireFact() needs visibility, and the admin role for another workspace's fact",
  async ({ actorA, actorB, viewA, seeA, seeB, record }, db) => {
    const shared = await record({ kind: "sampling", fact: "1% sample" });
    const own = await record({ kind: "exclusion", fact: "skip test rows" });
    await refuses(retireFact(db, actorB, seeB, own.id), "datasource.fact_not_found", 404);
    await refuses(retireFact(db, actorB, seeB, shared.id), "auth.role_required", 403);
    await refuses(retireFact(db, actorB, [], shared.id), "datasource.fact_not_found", 404);
    await refuses(retireFact(db, actorB, seeB, "not-a-uuid"), "datasource.fact_not_found", 404);
    await refuses(retireFact(db, actorB, seeB, newId()), "datasource.fact_not_found", 404);
    await retireFact(db, { ...actorB, isWorkspaceAdmin: true }, seeB, shared.id);
    await refuses(retireFact(db, actorA, seeA, shared.id), "datasource.fact_not_found", 404);
    deepEqual((await listFacts(db, viewA)).map((f) => f.id), [own.id]);
  },
);

factsTest("/columns drift demotes to needs_review once, one-way", async ({ viewA, record }, db) => {
  const tracked = await record({
    kind: "unit",
    fact: "cents",
    schema: "public",
    table: "orders",
    column: "amount",
    columns: COLUMNS,
  });
  const unfingerprinted = await record({
    kind: "note",
    fact: "busy table",
    schema: "public",
    table: "orders",
  });
  const same = await attachColumnFacts(db, viewA, DS1.id, "public", "orders", COLUMNS);
  deepEqual(same.columns.map((c) => c.facts?.map((f) => f.trust)), [undefined, ["asserted"]]);
  equal("facts" in same.columns[0], false);
  deepEqual(same.table_facts.map((f) => f.id), [unfingerprinted.id]);

  const changed = [...COLUMNS, { name: "currency", type: "string" }];
  const drifted = await attachColumnFacts(db, viewA, DS1.id, "public", "orders", changed);
  const fact = drifted.columns[1].facts![0];
  deepEqual([fact.id, fact.trust], [tracked.id, "needs_review"]);
  ok(fact.drift!.includes("public.orders"));
  equal(drifted.table_facts[0].trust, "asserted");

  equal(await checkColumnDrift(db, DS1.id, "public", "orders", changed), 0);
  equal(await checkColumnDrift(db, DS1.id, "public", "orders", COLUMNS), 0);
  deepEqual((await listFacts(db, viewA)).map((f) => f.trust).sort(), ["asserted", "needs_review"]);
  equal(await checkColumnDrift(db, DS1.id, "other_schema", "orders", changed), 0);
});

factsTest(
  "a complete /tables listing makes facts on vanished tables stale, for good",
  async ({ viewA, record }, db) => {
    const orders = await record({
      kind: "grain",
      fact: "one row per order",
      schema: "public",
      table: "orders",
      columns: COLUMNS,
    });
    const users = await record({
      kind: "grain",
      fact: "one row per user",
      schema: "public",
      table: "users",
    });
    const listing = [{ schema: "public", name: "orders" }];
    equal(await checkTableDrift(db, DS1.id, listing, false), 0, "a partial listing proves nothing");
    const served = await attachTableFacts(db, viewA, DS1.id, listing, { complete: true });
    deepEqual(served.map((t) => t.facts?.map((f) => [f.id, f.trust])), [[[orders.id, "asserted"]]]);
    const gone = (await listFacts(db, viewA)).find((f) => f.id === users.id)!;
    deepEqual([gone.trust, gone.drift], ["stale", "the table public.users is no longer listed"]);

    await checkColumnDrift(db, DS1.id, "public", "orders", [COLUMNS[0]]);
    equal(await checkTableDrift(db, DS1.id, [], true), 1, "needs_review falls to stale");
    const back = [{ schema: "public", name: "orders" }, { schema: "public", name: "users" }];
    equal(await checkTableDrift(db, DS1.id, back, true), 0);
    deepEqual((await listFacts(db, viewA)).map((f) => f.trust), ["stale", "stale"]);
    const plain = await attachTableFacts(db, viewA, DS1.id, [{ schema: "x", name: "y" }], {
      complete: false,
    });
    deepEqual(plain, [{ schema: "x", name: "y" }]);
  },
);
