/**
 * Routes declare their input and output schemas once; the same zod schemas validate requests and
 * generate `/openapi.json`, so the document cannot drift from what is enforced. The registry also
 * knows every (method, path) so an unmatched method can answer 405 with `Allow`.
 */
import type { Hono } from "hono";
import { z } from "zod";
import type { ErrorCode } from "../errors/mod.ts";
import type { Operation, RouteAccess, WorkspaceContext } from "../identity/mod.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { errorEnvelopeSchema, successEnvelope } from "./envelope.ts";
import { readJson, validate } from "./input.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";

// deno-lint-ignore no-explicit-any
type AnyObject = z.ZodObject<any>;

/** The operation a request is judged by, and where (see `RouteSpec.accessFor`). */
export interface AccessChoice {
  access: Operation;
  /** The workspace to judge in; absent keeps the request's resolved workspace. */
  workspace?: WorkspaceContext | null;
}

export interface RouteSpec<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  method: Method;
  /** Hono path, e.g. `/api/v1/pipelines/:id`. */
  path: string;
  summary: string;
  tag: string;
  /** The operation of the matrix this route performs, or `public`. Required: default-deny. */
  access: RouteAccess;
  /**
   * For routes whose matrix row depends on the target (a datasource no workspace owns is instance
   * administration, a bound one its workspace's): picks the operation judged for this request and,
   * optionally, the workspace it is judged in. Undefined keeps `access` and the resolved workspace.
   * Runs after authentication, before the scope-and-role check.
   */
  accessFor?: (
    c: AppContext,
    params: Record<string, string>,
    workspace: WorkspaceContext | null,
  ) => Promise<AccessChoice | undefined>;
  /** A path parameter naming the workspace the operation is judged in (instead of the active one). */
  workspaceParam?: string;
  /** With workspaceParam: a super admin session may address a deactivated workspace. */
  reachDeactivated?: boolean;
  /** Endpoint-kind keys may call this route (published endpoints, their own executions). */
  endpointKeys?: boolean;
  /** A promotion receiver route, opened by a server key through the promotion gate. */
  promotionReceiver?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of `data` in the success envelope. */
  response?: z.ZodType;
  /** `envelope` (default), `raw` JSON, or `html`; html routes stay out of the API document. */
  kind?: "envelope" | "raw" | "html";
  status?: number;
  /** Error codes this route documents beyond the common ones. */
  errors?: ErrorCode[];
}

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

type Handler<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> = (
  c: AppContext,
  input: RouteInput<P, Q, B>,
) => Response | Promise<Response>;

interface Registered {
  method: Method;
  path: string;
  pattern: RegExp;
  /** The literal text before the first parameter: most routes are ruled out by it alone. */
  prefix: string;
  names: string[];
  spec: RouteSpec<AnyObject, AnyObject, z.ZodType>;
}

function toPattern(path: string): RegExp {
  const body = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[A-Za-z0-9_]+/g, "/([^/]+)")
    .replace(/\*/g, ".*");
  return new RegExp(`^${body}/?$`);
}

/** Collects routes onto a Hono app and describes them. */
export class Router {
  readonly #app: Hono<AppEnv>;
  readonly #routes: Registered[] = [];

  constructor(app: Hono<AppEnv>) {
    this.#app = app;
  }

  /** Registers a route: validation first, then the handler. */
  add<
    P extends AnyObject = AnyObject,
    Q extends AnyObject = AnyObject,
    B extends z.ZodType = z.ZodUndefined,
  >(
    spec: RouteSpec<P, Q, B>,
    handler: Handler<P, Q, B>,
  ): void {
    this.#routes.push({
      method: spec.method,
      path: spec.path,
      pattern: toPattern(spec.path),
      prefix: spec.path.split(/[:*]/)[0],
      names: [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((x) => x[1]),
      spec: spec as unknown as RouteSpec<AnyObject, AnyObject, z.ZodType>,
    });
    this.#app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const input = {
        params: spec.params ? validate(spec.params, c.req.param(), "path") : {},
        query: spec.query ? validate(spec.query, c.req.query(), "query") : {},
        body: spec.body ? validate(spec.body, await readJson(c), "body") : undefined,
      } as RouteInput<P, Q, B>;
      return await handler(c, input);
    });
  }

  /** The route a request will reach, with its raw path parameters; undefined for 404/405. */
  match(
    method: string,
    path: string,
  ):
    | { spec: RouteSpec<AnyObject, AnyObject, z.ZodType>; params: Record<string, string> }
    | undefined {
    const m = method === "HEAD" ? "get" : method.toLowerCase();
    for (const r of this.#routes) {
      if (r.method !== m || !path.startsWith(r.prefix)) continue;
      const found = r.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        try {
          params[n] = decodeURIComponent(found[i + 1] ?? "");
        } catch {
          params[n] = found[i + 1] ?? "";
        }
      });
      return { spec: r.spec, params };
    }
    return undefined;
  }

  /** Every registered route, for the default-deny walk in tests. */
  routes(): { method: string; path: string; access: RouteAccess | undefined }[] {
    return this.#routes.map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path,
      access: r.spec.access,
    }));
  }

  /** Methods registered for a concrete path (HEAD with GET, OPTIONS always), or [] when none. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.#routes) if (r.pattern.test(path)) methods.add(r.method.toUpperCase());
    if (methods.size === 0) return [];
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    return [...methods].sort();
  }

  /** The OpenAPI 3.1 document of every non-html route. */
  openApi(info: { title: string; version: string; serverUrl?: string }): Record<string, unknown> {
    const schemas: Record<string, unknown> = {
      ErrorEnvelope: jsonSchema(errorEnvelopeSchema),
    };
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { method, path, spec } of this.#routes) {
      if (spec.kind === "html") continue;
      const oaPath = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      const parameters = [
        ...objectParameters(spec.params, "path"),
        ...objectParameters(spec.query, "query"),
      ];
      const success = spec.kind === "raw"
        ? spec.response
        : successEnvelope(spec.response ?? z.unknown());
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
          [String(spec.status ?? 200)]: {
            description: "Success",
            ...(success
              ? { content: { "application/json": { schema: jsonSchema(success) } } }
              : {}),
          },
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

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Record<
    string,
    unknown
  >;
  return rest;
}

function objectParameters(schema: AnyObject | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: s,
  }));
}
