/**
 * A running instance: the services (services.ts) and the HTTP app over them. `main.ts` serves it;
 * `tests/support/harness.ts` builds the very same graph.
 */
import type { ResolvedConfig } from "./config/mod.ts";
import { buildApp } from "./http/mod.ts";
import type { Router } from "./http/mod.ts";
import type { McpCall, McpEndpoint, McpEndpointOptions } from "./mcp/mod.ts";
import { openServices, type Services, type ServicesOptions } from "./services.ts";

export type { Services } from "./services.ts";

export interface RuntimeOptions extends ServicesOptions {
  /** Extra routes (tests use this to exercise the HTTP core with routes of their own). */
  extendRoutes?: (router: Router) => void;
  /** The tool endpoint's options (tests turn its fast path off to compare the two paths). */
  mcp?: McpEndpointOptions;
  /** Check every success answer against its route's declared response (tests/support/harness.ts). */
  checkResponses?: boolean;
}

/**
 * The tool endpoint, loaded with its first use (a call, `/skill.md`, or `warmUp()` once the
 * instance is ready): the SDK and the catalogue's schemas were a large part of every start.
 */
function lazyToolEndpoint(services: Services, options?: McpEndpointOptions) {
  let loading: Promise<McpEndpoint> | undefined;
  const load = () =>
    loading ??= import("./mcp/mod.ts").then((m) =>
      m.createMcpEndpoint(services, undefined, options)
    );
  return {
    load,
    fetch: async (request: Request, call: McpCall) => await (await load()).fetch(request, call),
    skill: async (origin: string) => (await load()).skill(origin),
    close: async () => await loading?.then((endpoint) => endpoint.close(), () => {}),
  };
}

export async function createRuntime(config: ResolvedConfig, options: RuntimeOptions) {
  const { services, internals, lifecycle } = await openServices(config, options);
  try {
    const tools = lazyToolEndpoint(services, options.mcp);
    const { app, router } = buildApp(services, options.extendRoutes, tools, {
      checkResponses: options.checkResponses,
    });
    options.phases?.mark("front_ends");
    const close = async () => {
      await tools.close();
      await lifecycle.close();
    };
    /**
     * Loads, once the instance answers, what its first requests would otherwise wait for: the
     * health probe (the staging engine's first DuckDB) and the tool endpoint. Never fails.
     */
    const warmUp = async () => {
      try {
        await services.platform.health.check();
        await tools.load();
      } catch (e) {
        services.platform.logger.debug("warm-up failed", { error: (e as Error).message });
      }
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
      warmUp,
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
