/**
 * `/openapi.json` is a valid OpenAPI 3.1 document for a real validator: schemas zod shares
 * between parts of a route are components, so every `$ref` resolves from the document root.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { withTestServer } from "./support/harness.ts";

Deno.test("/openapi.json validates as OpenAPI 3.1 and every $ref resolves", async () => {
  await withTestServer({}, async (s) => {
    const doc = await (await s.fetch("/openapi.json")).json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    equal(validator.version, "3.1");
    deepEqual(result.errors ?? [], [], JSON.stringify(result.errors)?.slice(0, 2000));
    ok(result.valid);
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    ok(refs.length > 0);
    for (const ref of new Set(refs)) {
      const path = ref.slice(8, -1);
      ok(path.startsWith("#/components/schemas/"), path);
      ok(doc.components.schemas[path.slice(21)], `${path} resolves`);
    }
    // A component that is only a pointer to itself passes the validator but stops generators.
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      ok(
        (schema as { $ref?: string }).$ref !== `#/components/schemas/${name}`,
        `${name} is defined`,
      );
    }
    equal(doc.components.schemas.ErrorEnvelope.type, "object");
  });
});
