/**
 * Front ends hold services only (docs/architecture.md#what-a-front-end-receives): the value they
 * are handed is the typed groups, and nothing in it is the metadata store, the shared store or the
 * configuration, however deep a handler looks.
 */
import { deepEqual, ok } from "node:assert/strict";
import { startTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";

forEachStoreKind("Services: typed groups, no store or configuration inside", async (store) => {
  const server = await startTestServer({ store });
  try {
    const { services, db, shared, config } = server.runtime;
    deepEqual(Object.keys(services).sort(), [
      "admin",
      "content",
      "identity",
      "platform",
      "publishing",
      "runs",
      "settings",
    ]);
    const forbidden = new Map<unknown, string>([[db, "db"], [shared, "shared"], [
      config,
      "config",
    ]]);
    // Walks own fields of every service object (not into class internals, which may hold a store:
    // that is the service's business) and of the settings record.
    for (const [group, members] of Object.entries(services)) {
      for (const [name, value] of Object.entries(members as Record<string, unknown>)) {
        ok(!forbidden.has(value), `${group}.${name} is the ${forbidden.get(value)}`);
      }
    }
    const settings = JSON.stringify(services.settings);
    ok(!settings.includes(config.store.url), "settings carry the store URL");
  } finally {
    await server.close();
  }
});
