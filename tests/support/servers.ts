/** One running app per store for the HTTP-level tests, with the access fixture seeded. */
import { type AccessFixture, seedRoles } from "../access_fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "../harness.ts";
import { forEachStoreKind } from "../stores.ts";

/**
 * Registers `name` once per store kind with a started test server and `seedRoles` done (the
 * `acme` workspace and its users); the server is closed after `fn`.
 */
export function forEachServer(
  name: string,
  fn: (s: TestServer, f: AccessFixture) => Promise<void>,
  options: Omit<TestServerOptions, "store"> = {},
): void {
  forEachStoreKind(name, async (store) => {
    const s = await startTestServer({ ...options, store });
    try {
      await fn(s, await seedRoles(s.runtime));
    } finally {
      await s.close();
    }
  });
}
