import type { Context } from "hono";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { AppError } from "../errors/mod.ts";
import type { PromotionCaller } from "../promotion/mod.ts";

/** Per-request values every handler and middleware may read. */
export interface AppEnv {
  Variables: {
    correlationId: string;
    /** The client address, resolved through the trusted proxies. */
    clientIp: string | undefined;
    /** Set by the API key or session step. */
    principal: Principal | undefined;
    /** Set by workspace resolution (or by the scope step for routes naming their workspace). */
    workspace: WorkspaceContext | null;
    /** Live memberships of the caller (keys: of the issuer). */
    membershipCount: number;
    /** Why a presented session was dropped, answered when the route needs a credential. */
    sessionFailure: AppError | undefined;
    /** Set by the promotion key gate on the receiver routes: who pushes. */
    promotionCaller: PromotionCaller | undefined;
  };
}

export type AppContext = Context<AppEnv>;
