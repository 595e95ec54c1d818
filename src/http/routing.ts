/**
 * Routes declare their input and output schemas once; the same zod schemas validate requests and
 * generate `/openapi.json`, so the document cannot drift from what is enforced. Each route carries
 * its own access check (step 11 of `installPipeline`) as route-level middleware, so Hono's match is
 * the only one; the registry also knows every path's methods so another method answers 405 with
 * `Allow`.
 */
import type { Hono, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { z } from "zod";
import type { ErrorCode } from "../errors/mod.ts";
import type {
  Operation,
  OPERATIONS,
  Principal,
  RouteAccess,
  WorkspaceContext,
} from "../identity/mod.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { errorEnvelopeSchema } from "./envelope.ts";
import { readJson, validate } from "./input.ts";
import { clampPage, type Page, type PageLimits, pageQuery } from "./page.ts";
import { answers, checkResponse, declaresEveryAnswer, describeAnswers } from "./responses.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";

// deno-lint-ignore no-explicit-any
type AnyObject = z.ZodObject<any>;

/** The operation a request is judged by, and where (see `RouteSpec.accessFor`). */
export interface AccessChoice {
  access: Operation;
  /** The workspace to judge in; absent keeps the request's resolved workspace. */
  workspace?: WorkspaceContext | null;
}

export type AccessFor = (
  c: AppContext,
  at: { actor: Principal; params: Record<string, string>; workspace: WorkspaceContext | null },
) => Promise<AccessChoice | undefined>;

/** `true`: the instance's paging settings; or limits of the route's own (result pages). */
export type PageOption = true | PageLimits;

export interface RouteSpec<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends z.ZodType = z.ZodType,
  A extends RouteAccess = RouteAccess,
  F extends AccessFor | undefined = AccessFor | undefined,
  G extends PageOption | undefined = PageOption | undefined,
> {
  method: Method;
  /** Hono path, e.g. `/api/v1/pipelines/:id`. */
  path: string;
  summary: string;
  tag: string;
  /** The operation of the matrix this route performs, or `public`. Required: default-deny. */
  access: A;
  /**
   * For routes whose matrix row depends on the target (a datasource no workspace owns is instance
   * administration, a bound one its workspace's): picks the operation judged for this request and,
   * optionally, the workspace it is judged in. Undefined keeps `access` and the resolved workspace.
   * Runs after authentication, before the scope-and-role check.
   */
  accessFor?: F;
  /** A path parameter naming the workspace the operation is judged in (instead of the active one). */
  workspaceParam?: string;
  /** With workspaceParam: a super admin session may address a deactivated workspace. */
  reachDeactivated?: boolean;
  /** Endpoint-kind keys may call this route (published endpoints, their own executions). */
  endpointKeys?: boolean;
  /** A promotion receiver route, opened by a server key through the promotion gate. */
  promotionReceiver?: boolean;
  /** A paged list: `offset` and `limit` join the query and arrive clamped as `page`. */
  page?: G;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Schema of `data` in the success envelope (of the whole body for `raw`) at `status`. Every JSON
   * route declares one: it documents the answer, and tests check every answer against it.
   */
  response?: z.ZodType;
  /** Further success answers: status → schema of `data` (of the body for `raw`); null: no body. */
  alsoAnswers?: Record<number, z.ZodType | null>;
  /** Bodies other than JSON the route answers on request at `status` (an event stream, CSV). */
  produces?: string[];
  /** `envelope` (default), `raw` JSON, or `html`; html routes stay out of the API document. */
  kind?: "envelope" | "raw" | "html";
  /** The success status (default 200); a 204 route declares no response. */
  status?: number;
  /** Error codes this route documents beyond the common ones. */
  errors?: ErrorCode[];
}

/** The workspace a route's operation guarantees: non-null where the matrix requires one. */
type WorkspaceOf<A extends RouteAccess> = A extends Operation
  ? (typeof OPERATIONS)[A]["workspace"] extends "required" ? WorkspaceContext
  : WorkspaceContext | null
  : WorkspaceContext | null;

/** What a handler receives: who acts, where, which page, and its validated input. */
export interface RouteInput<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  A extends RouteAccess = RouteAccess,
  F = undefined,
  G = undefined,
> {
  /** The principal; only a public route may run without one. */
  actor: A extends "public" ? Principal | undefined : Principal;
  /** The workspace the operation was judged in (an `accessFor` may judge without one). */
  workspace: F extends AccessFor ? WorkspaceContext | null : WorkspaceOf<A>;
  page: G extends PageOption ? Page : undefined;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

type Handler<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, A, F, G> = (
  c: AppContext,
  input: RouteInput<P, Q, B, A & RouteAccess, F, G>,
) => Response | Promise<Response>;

export interface RouterOptions {
  /** Step 11 for one route: kind confinement, then its declared operation (scope_role.ts). */
  guard: (spec: RouteSpec) => MiddlewareHandler<AppEnv>;
  paging: PageLimits;
  /**
   * Tests: every success answer is checked against what its route declares (responses.ts); a
   * mismatch throws, so the caller gets a 500 and the log says which route and field. Off in
   * production, where it would only cost a parse per answer.
   */
  checkResponses?: boolean;
}

/** A registered route as `routes()` lists it. */
export interface RouteInfo {
  method: string;
  path: string;
  access: RouteAccess | undefined;
  promotionReceiver: boolean;
  kind: "envelope" | "raw" | "html";
  /** Some success status answers a JSON body. */
  json: boolean;
  /** Every success answer is described: a schema, no content, or a declared stream. */
  declared: boolean;
  /** Success answers checked against the declaration so far (with `checkResponses` on). */
  checked: number;
}

/** Collects routes onto a Hono app and describes them. */
export class Router {
  readonly #app: Hono<AppEnv>;
  readonly #options: RouterOptions;
  readonly #routes: RouteSpec[] = [];
  /** Path → registered methods: the one map a 405 answers from. */
  readonly #methods = new Map<string, Set<string>>();
  /** Route → success answers checked (with `checkResponses` on). */
  readonly #checked = new Map<RouteSpec, number>();

  constructor(app: Hono<AppEnv>, options: RouterOptions) {
    this.#app = app;
    this.#options = options;
  }

  /** Registers a route: its access check, validation, then the handler. */
  add<
    P extends AnyObject = AnyObject,
    Q extends AnyObject = AnyObject,
    B extends z.ZodType = z.ZodUndefined,
    A extends RouteAccess = RouteAccess,
    F extends AccessFor | undefined = undefined,
    G extends PageOption | undefined = undefined,
  >(
    spec: RouteSpec<P, Q, B, A, F, G>,
    handler: Handler<P, Q, B, A, F, G>,
  ): void {
    const limits: PageLimits | undefined = spec.page === true
      ? this.#options.paging
      : spec.page || undefined;
    const query = limits ? (spec.query ?? z.object({})).extend(pageQuery.shape) : spec.query;
    const stored = { ...spec, query } as unknown as RouteSpec;
    this.#routes.push(stored);
    const method = spec.method.toUpperCase();
    let methods = this.#methods.get(spec.path);
    if (!methods) this.#methods.set(spec.path, methods = new Set());
    methods.add(method);
    this.#app.on(method, spec.path, this.#options.guard(stored), async (c) => {
      const q = query ? validate(query, c.req.query(), "query") : {};
      const input = {
        actor: c.get("principal"),
        workspace: c.get("workspace"),
        page: limits ? clampPage(q, limits) : undefined,
        params: spec.params ? validate(spec.params, c.req.param(), "path") : {},
        query: q,
        body: spec.body ? validate(spec.body, await readJson(c), "body") : undefined,
      } as RouteInput<P, Q, B, A, F, G>;
      const response = await handler(c, input);
      if (this.#options.checkResponses && spec.kind !== "html" && response.status < 300) {
        await checkResponse(stored, response);
        this.#checked.set(stored, (this.#checked.get(stored) ?? 0) + 1);
      }
      return response;
    });
  }

  /**
   * Answers a request whose path is registered but not for its method. Call once, after the last
   * route: each path gets a catch-all behind its own routes, and Hono's match says which paths
   * matched, so the `Allow` list is the union of their methods.
   */
  answerOtherMethods(answer: (c: AppContext, allowed: string[]) => Response): void {
    for (const path of this.#methods.keys()) {
      this.#app.all(path, (c) => answer(c, this.#allowed(c)));
    }
  }

  #allowed(c: AppContext): string[] {
    const methods = new Set<string>(["OPTIONS"]);
    for (const route of matchedRoutes(c)) {
      for (const m of this.#methods.get(route.path) ?? []) methods.add(m);
    }
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }

  /** Every registered route, for the default-deny walk and the response check in tests. */
  routes(): RouteInfo[] {
    return this.#routes.map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path,
      access: r.access,
      promotionReceiver: r.promotionReceiver === true,
      kind: r.kind ?? "envelope",
      json: r.kind !== "html" && answers(r).some(([, schema]) => schema !== null),
      declared: declaresEveryAnswer(r),
      checked: this.#checked.get(r) ?? 0,
    }));
  }

  /** The OpenAPI 3.1 document of every non-html route. */
  openApi(info: { title: string; version: string; serverUrl?: string }): Record<string, unknown> {
    const schemas: Record<string, unknown> = {};
    // zod writes each schema's shared parts into its own `$defs`, referenced from the document
    // root; in an OpenAPI document they belong under components.schemas.
    const jsonSchema = (schema: z.ZodType) => hoistDefs(toJson(schema), schemas);
    // The envelope carries a meta id, so hoisting files it under components.schemas.ErrorEnvelope;
    // what comes back is only the pointer to it, which must not overwrite the definition.
    jsonSchema(errorEnvelopeSchema);
    const paths: Record<string, Record<string, unknown>> = {};
    for (const spec of this.#routes) {
      const { method, path } = spec;
      if (spec.kind === "html") continue;
      const oaPath = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      const parameters = [
        ...objectParameters(spec.params, "path"),
        ...objectParameters(spec.query, "query"),
      ];
      (paths[oaPath] ??= {})[method] = {
        summary: spec.summary,
        tags: [spec.tag],
        operationId: `${method}_${path.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "")}`,
        ...(parameters.length ? { parameters } : {}),
        ...(spec.body
          ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchema(spec.body) } },
            },
          }
          : {}),
        responses: {
          ...describeAnswers(spec, jsonSchema),
          default: {
            description: `Error envelope${
              spec.errors?.length ? `; codes include ${spec.errors.join(", ")}` : ""
            }`,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } },
            },
          },
        },
      };
    }
    return {
      openapi: "3.1.0",
      info: { title: info.title, version: info.version },
      ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
      paths,
      components: { schemas },
    };
  }
}

function toJson(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Record<
    string,
    unknown
  >;
  return rest;
}

/**
 * Moves a schema's `$defs` into `components` (renaming one whose name is taken by a different
 * definition) and points its `$ref`s there.
 */
function hoistDefs(
  json: Record<string, unknown>,
  components: Record<string, unknown>,
): Record<string, unknown> {
  const { $defs, ...rest } = json as { $defs?: Record<string, unknown> };
  if (!$defs) return rest;
  const names = new Map<string, string>();
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => {
        const local = k === "$ref" && typeof x === "string" && /^#\/\$defs\/(.+)$/.exec(x);
        return [k, local ? `#/components/schemas/${names.get(local[1]) ?? local[1]}` : rewrite(x)];
      }),
    );
  };
  // The same definition embedded by many routes is one component; a different one gets a suffix.
  for (const [name, def] of Object.entries($defs)) {
    const text = JSON.stringify(rewrite(def));
    let target = name;
    for (let i = 2; target in components && JSON.stringify(components[target]) !== text; i++) {
      target = `${name}_${i}`;
    }
    names.set(name, target);
  }
  for (const [name, def] of Object.entries($defs)) components[names.get(name)!] = rewrite(def);
  return rewrite(rest) as Record<string, unknown>;
}

function objectParameters(schema: AnyObject | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = toJson(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: s,
  }));
}
