/**
 * The benchmarks' people on the demo content: a super admin, and a user who authors in the demo
 * workspace (the one whose keys call the demo pipelines and endpoints).
 */
import type { Runtime } from "../src/runtime.ts";
import { createUser } from "../tests/support/access_fixtures.ts";

export async function demoUsers(rt: Runtime) {
  const admin = await createUser(rt, "bench-admin@example.com", { isAdmin: true });
  const user = await createUser(rt, "bench@example.com");
  await rt.workspaces.addMember(admin.principal, "demo", {
    email: user.email,
    author: true,
    promoter: false,
    admin: false,
  });
  rt.directory.forgetWorkspaces();
  const demo = (await rt.workspaces.get("demo"))!;
  return { admin, user, demo };
}
