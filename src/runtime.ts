/**
 * A running instance: the services (services.ts) and the HTTP app over them. `main.ts` serves it;
 * `tests/support/harness.ts` builds the very same graph.
 */
import type { ResolvedConfig } from "./config/mod.ts";
import { buildApp } from "./http/mod.ts";
import type { Router } from "./http/mod.ts";
import { createMcpEndpoint, type McpEndpointOptions } from "./mcp/mod.ts";
import { openServices, type ServicesOptions } from "./services.ts";

export type { Services } from "./services.ts";

export interface RuntimeOptions extends ServicesOptions {
  /** Extra routes (tests use this to exercise the HTTP core with routes of their own). */
  extendRoutes?: (router: Router) => void;
  /** The tool endpoint's options (tests turn its fast path off to compare the two paths). */
  mcp?: McpEndpointOptions;
  /** Check every success answer against its route's declared response (tests/support/harness.ts). */
  checkResponses?: boolean;
}

export async function createRuntime(config: ResolvedConfig, options: RuntimeOptions) {
  const { services, internals, lifecycle } = await openServices(config, options);
  try {
    const tools = createMcpEndpoint(services, undefined, options.mcp);
    const { app, router } = buildApp(services, options.extendRoutes, tools, {
      checkResponses: options.checkResponses,
    });
    const close = async () => {
      await tools.close();
      await lifecycle.close();
    };
    // Flat, so tests and main.ts reach a service as `runtime.pipelines`, the app as `runtime.app`;
    // the grouped value front ends receive stays whole as `runtime.services`.
    const { platform, identity, admin, content, runs, publishing, settings } = services;
    return {
      ...internals,
      ...platform,
      ...identity,
      ...admin,
      ...content,
      ...runs,
      ...publishing,
      settings,
      ...lifecycle,
      close,
      services,
      app,
      router,
    };
  } catch (e) {
    await lifecycle.close();
    throw e;
  }
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
