/** Shared set-up for the datasource tests: two workspaces, their admins, a super admin. */
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import { createLogger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { addUser, who, workspaceWithAdmin } from "../workspaces/test_fixtures.ts";
import { CredentialCipher, DatasourceService } from "./mod.ts";
import type { ReferenceFinder } from "./types.ts";

export const CANARY = "canary-Zq9!secret-7f3a";

export interface DatasourceFixture {
  ds: DatasourceService;
  root: Principal;
  admin: Principal;
  author: Principal;
  otherAdmin: Principal;
  /** The workspace `name` as `user` acts in it. */
  ctx(name: string, user: Principal): Promise<WorkspaceContext>;
  logs: string[];
}

/** Workspaces `acme` (admin, author) and `other` (otherAdmin); `root` is a super admin. */
export async function datasourceFixture(
  db: Db,
  options: { memberWritesEnabled?: boolean; referenceFinders?: ReferenceFinder[] } = {},
): Promise<DatasourceFixture> {
  const { svc: workspaces, root, admin } = await workspaceWithAdmin(db, "acme");
  const author = await addUser(db, "author@acme.example");
  await workspaces.addMember(root, "acme", { email: author.email, author: true });
  await workspaces.create(root, { name: "other" });
  const otherAdmin = await addUser(db, "admin@other.example");
  await workspaces.addMember(root, "other", { email: otherAdmin.email, admin: true });
  const logs: string[] = [];
  const ds = new DatasourceService({
    db,
    cipher: await CredentialCipher.create(crypto.getRandomValues(new Uint8Array(32))),
    logger: createLogger("debug", (line) => logs.push(line)),
    memberWritesEnabled: options.memberWritesEnabled ?? true,
    findWorkspace: (name) => workspaces.get(name),
    referenceFinders: options.referenceFinders,
  });
  return {
    ds,
    root,
    admin,
    author,
    otherAdmin,
    logs,
    ctx: async (name, user) => (await workspaces.resolveForUser(who(user), name))!,
  };
}

/** A valid PostgreSQL definition with the canary secret. */
export function pgBody(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    dialect: "POSTGRES",
    jdbc_url: "jdbc:postgresql://127.0.0.1:5432/warehouse",
    credential: { kind: "password", username: "reader", secret: CANARY },
    ...extra,
  };
}
