/**
 * What the HTTP front end hands the tool endpoint for one request, once its steps
 * (docs/mcp.md#calling-it: Origin, key, pinned workspace, budget, kind confinement) have passed. Structural on purpose:
 * src/http and src/mcp are both front ends and import neither each other; src/runtime.ts joins
 * them.
 */
import type { Principal, WorkspaceContext } from "../identity/mod.ts";

export interface McpCall {
  /** The key's owner; always an API key principal of kind `user`. */
  actor: Principal;
  /** The key's pinned workspace, with the issuer's current flags. */
  workspace: WorkspaceContext;
  /** The issuer's live memberships (the floor check tells zero-membership callers apart). */
  membershipCount: number;
  correlationId: string;
  /** Bounds reading the request body by the front end's body timeout; absent, unbounded. */
  bodyWithin?<T>(read: Promise<T>): Promise<T>;
}
