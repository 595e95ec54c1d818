/** One running app per store for the HTTP-level tests, with the access fixture seeded. */
import { type AccessFixture, seedRoles } from "./access_fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./harness.ts";
import { forEachStoreKind } from "./stores.ts";

/**
 * Registers `name` once per store kind with a started test server and `seedRoles` done (the
 * `acme` workspace and its users), and a scratch directory for the test's own files; the server
 * is closed and the directory removed after `fn`.
 */
export function forEachServer(
  name: string,
  fn: (s: TestServer, f: AccessFixture, dir: string) => Promise<void>,
  options: Omit<TestServerOptions, "store"> = {},
): void {
  forEachStoreKind(name, async (store) => {
    const dir = await Deno.makeTempDir({ prefix: "svc_test_files_" });
    const s = await startTestServer({ ...options, store });
    try {
      await fn(s, await seedRoles(s.runtime), dir);
    } finally {
      await s.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
