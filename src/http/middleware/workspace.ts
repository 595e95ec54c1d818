/**
 * Step 7, workspace resolution (docs/decisions.md#api-keys-stay-in-one-workspace). Keys act in
 * their pinned workspace and may not name another; sessions use `SVC-Workspace` (remembered as last
 * used), else the token's claim, else the last-used or first live membership. Unknown, non-member
 * and deactivated are one answer: 404.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";

export function workspaceResolution(
  deps: Pick<AccessDeps, "directory" | "access">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("workspace", null);
    const principal = c.get("principal");
    // The promotion receiver names its workspaces in the payload.
    if (!principal || principal.keyKind === "server") return await next();
    const header = c.req.header("svc-workspace");
    const user = { userId: principal.userId, isSuperAdmin: principal.isSuperAdmin };

    if (principal.authMethod === "API_KEY") {
      if (header !== undefined) await deps.access.refuseWorkspaceHeader(principal, header);
      const pinned = await deps.directory.resolvePinned(user, principal.pinnedWorkspaceId!);
      if (pinned.state !== "active") throw new AppError("auth.key_workspace_inactive", {});
      c.set("workspace", pinned.context);
      c.set("membershipCount", await deps.directory.membershipCount(principal.userId));
      return await next();
    }

    c.set("membershipCount", await deps.directory.membershipCount(principal.userId));
    if (header !== undefined) {
      const named = await deps.directory.resolveByName(user, header.trim());
      if (!named) throw new AppError("workspace.not_found", { workspace: header.slice(0, 100) });
      await deps.directory.rememberLastUsed(principal.userId, named.id);
      c.set("workspace", named);
      return await next();
    }
    const claimed = principal.activeWorkspace
      ? await deps.directory.resolveByName(user, principal.activeWorkspace)
      : null;
    c.set("workspace", claimed ?? await deps.directory.defaultFor(user));
    await next();
  };
}
