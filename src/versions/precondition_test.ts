import { equal, throws } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { AppError } from "../errors/mod.ts";
import { requireIfMatch } from "./precondition.ts";
import { bodyOf, createOne, releasedOne, shape, worlds } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

const MISSING = "pipeline.execution.invalid_parameter_type";

Deno.test("requireIfMatch() drops surrounding quotes and refuses absent or blank values", () => {
  const hash = `sha256:${"ab".repeat(32)}`;
  equal(requireIfMatch(hash), hash);
  equal(requireIfMatch(` "${hash}" `), hash);
  for (const missing of [undefined, null, "", "   ", '""']) {
    throws(() => requireIfMatch(missing), (e: unknown) => {
      return e instanceof AppError && e.code === MISSING && e.status === 400 &&
        e.details.reason === "precondition_missing" && e.details.field === "If-Match";
    });
  }
});

forEachStore(
  "a missing If-Match is 400 precondition_missing on every guarded write",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name } = await createOne(w);
      const details = { reason: "precondition_missing", field: "If-Match" };
      await refuses(
        w.life.update(w.asAlice, id, undefined, { body: bodyOf(w.k, name, 2) }),
        MISSING,
        400,
        details,
      );
      await refuses(w.life.release(w.asAlice, id, null), MISSING, 400, details);
      await refuses(w.life.purgeDraft(w.asAlice, id, " "), MISSING, 400, details);
      equal((await w.life.view(w.workspaceId, id)).working?.version, 1);
    }
  },
);

forEachStore("a stale If-Match is 409 with the current hash and its author", async (db) => {
  for (const w of await worlds(db)) {
    const { id, name, hash } = await releasedOne(w);
    const bobs = await w.life.update(w.asBob, id, hash, { body: bodyOf(w.k, name, "bob") });
    const conflict = await refuses(
      w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "alice") }),
      w.k.codes.conflict,
      409,
      {
        [`${w.k.kind}_id`]: w.k.kind === "pipeline" ? id : name,
        if_match: hash,
        current_hash: bobs.version.body_hash,
        current_version: 2,
        current_status: "DRAFT",
        author: w.bob.userId,
        authored_at: bobs.version.updated_at,
      },
    );
    equal(conflict.message.includes(bobs.version.body_hash), true);
    await refuses(w.life.release(w.asAlice, id, hash), w.k.codes.conflict, 409, {
      current_hash: bobs.version.body_hash,
    });
    await refuses(w.life.purgeDraft(w.asAlice, id, "sha256:nonsense"), w.k.codes.conflict, 409);
    // A quoted (ETag-style) current hash is accepted.
    const ok = await w.life.update(w.asAlice, id, `"${bobs.version.body_hash}"`, {
      body: bodyOf(w.k, name, "alice"),
    });
    equal(ok.version.updated_by, w.alice.userId);
    // With no draft, the current release's author is named.
    await w.life.release(w.asAlice, id, ok.version.body_hash);
    await refuses(
      w.life.update(w.asBob, id, bobs.version.body_hash, { body: bodyOf(w.k, name, "late") }),
      w.k.codes.conflict,
      409,
      { current_hash: ok.version.body_hash, current_status: "RELEASED", author: w.alice.userId },
    );
  }
});

forEachStore("an If-Match from another entity is stale", async (db) => {
  for (const w of await worlds(db)) {
    const a = await createOne(w, "team/a");
    const b = await createOne(w, "team/b");
    await refuses(
      w.life.update(w.asAlice, a.id, b.hash, { body: bodyOf(w.k, a.name, 2) }),
      w.k.codes.conflict,
      409,
      { if_match: b.hash, current_hash: a.hash },
    );
    await refuses(w.life.release(w.asAlice, a.id, b.hash), w.k.codes.conflict, 409);
    await refuses(w.life.purgeDraft(w.asAlice, a.id, b.hash), w.k.codes.conflict, 409);
    equal((await shape(w, a.id)).join(), "1:DRAFT");
  }
});

forEachStore("an entity of another workspace, or a malformed id, is the kind's 404", async (db) => {
  const [p, t] = await worlds(db);
  for (const [w, other] of [[p, t], [t, p]]) {
    const { id, hash } = await createOne(w);
    const elsewhere = { ...w.asAlice, workspaceId: other.workspaceId };
    await refuses(w.life.update(elsewhere, id, hash, { body: {} }), w.k.codes.not_found, 404);
    await refuses(w.life.release(elsewhere, id, hash), w.k.codes.not_found, 404);
    await refuses(w.life.view(other.workspaceId, id), w.k.codes.not_found, 404);
    await refuses(w.life.switchCurrent(w.asAlice, "not-a-uuid", 1), w.k.codes.not_found, 404);
    await refuses(w.life.version(w.workspaceId, id, 2), w.k.codes.version_not_found, 404, {
      version: 2,
    });
  }
});
