/**
 * The OpenAPI 3.1 document of `/api/x` (issue 13): one path per published endpoint the presenting
 * key may call (or, when bindings let it call only some of a pattern's URLs, one per part it may
 * call: serve.ts `describe`), its parameters from the latest release's declarations (type,
 * required, default, enum, bounds), and the answers of a serve (docs/endpoints.md#serving). Result
 * columns are not known before a run, so `rows` is described as the `data_ready` shape with
 * `schema` naming the columns at run time. Every schema is inline or under `components`, so `$ref`s
 * resolve from the document root.
 */
import { z } from "zod";
import { dataReadyView } from "../executions/mod.ts";
import type { ParameterDeclaration, ParameterDeclarations } from "../pipelines/mod.ts";
import type { EndpointRow } from "./repo.ts";
import { acceptedView } from "./views.ts";

type Json = Record<string, unknown>;

export interface DescribedEndpoint {
  endpoint: EndpointRow;
  /** The OpenAPI path: the pattern, or the part of its URLs the key may call. */
  path: string;
  /** The variables still open in `path`, each with the values the key is refused on there. */
  variables: { name: string; except: string[] }[];
  /** Variables `path` fixes to a literal: no longer parameters. */
  fixed: string[];
  parameters: ParameterDeclarations;
  version: number;
}

const ERROR_REF = { $ref: "#/components/schemas/ErrorEnvelope" };

/** The JSON Schema of a view that names no other: the very schema REST and the tools answer. */
function inlineJson(view: z.ZodType): Json {
  const { $schema: _, $ref, $defs, ...rest } = z.toJSONSchema(view, {
    target: "draft-2020-12",
  }) as Json & { $ref?: string; $defs?: Record<string, Json> };
  return $ref ? $defs![$ref.replace("#/$defs/", "")] : rest;
}

function schemaOf(d: ParameterDeclaration): Json {
  const base: Json = (() => {
    switch (d.type) {
      case "integer":
        return { type: "integer" };
      case "number":
        return { type: "number" };
      case "boolean":
        return { type: "boolean" };
      case "date":
        return { type: "string", format: "date" };
      case "timestamp":
        return { type: "string", format: "date-time" };
      case "string_list":
        return { type: "string", description: "comma-separated values" };
      case "integer_list":
        return {
          type: "string",
          pattern: "^-?\\d+(,-?\\d+)*$",
          description: "comma-separated integers",
        };
      default:
        return { type: "string" };
    }
  })();
  if (d.enum && d.type !== "string_list" && d.type !== "integer_list") base.enum = d.enum;
  if (typeof d.min === "number") base.minimum = d.min;
  if (typeof d.max === "number") base.maximum = d.max;
  if (d.max_length !== undefined && d.type === "string") base.maxLength = d.max_length;
  if (d.default !== undefined) {
    base.default = Array.isArray(d.default) ? d.default.join(",") : d.default;
  }
  return base;
}

/** A path variable's schema, refusing the values a binding keeps from this key. */
function variableSchema(d: ParameterDeclaration, except: string[]): Json {
  const schema = schemaOf(d);
  // A segment is text; a typed parameter is compared as the value the text becomes.
  const values = except.flatMap((v): (string | number | boolean)[] => {
    if (d.type === "integer" || d.type === "number") {
      return String(Number(v)) === v ? [Number(v)] : [];
    }
    if (d.type === "boolean") return v === "true" || v === "false" ? [v === "true"] : [];
    return [v];
  });
  return values.length > 0 ? { ...schema, not: { enum: values } } : schema;
}

function operation(e: DescribedEndpoint, operationId: string): Json {
  const inPath = new Set([...e.variables.map((v) => v.name), ...e.fixed]);
  const parameters = [
    ...e.variables.map(({ name, except }) => ({
      name,
      in: "path",
      required: true,
      schema: variableSchema(e.parameters[name] ?? { type: "string" }, except),
      ...(e.parameters[name]?.description ? { description: e.parameters[name].description } : {}),
    })),
    ...Object.entries(e.parameters)
      .filter(([name]) => !inPath.has(name))
      .map(([name, d]) => ({
        name,
        in: "query",
        required: d.required === true && d.default === undefined,
        schema: schemaOf(d),
        ...(d.description ? { description: d.description } : {}),
      })),
    { $ref: "#/components/parameters/ResultTtl" },
    { $ref: "#/components/parameters/ResultPageRows" },
  ];
  const error = (description: string) => ({
    description,
    content: { "application/json": { schema: ERROR_REF } },
  });
  return {
    operationId,
    summary: e.endpoint.description ?? `Runs pipeline ${e.endpoint.pipeline_name ?? ""}`.trim(),
    description: `Serves version ${e.version}, the latest release of the pinned pipeline.`,
    parameters,
    responses: {
      "200": {
        description: "The data_ready payload",
        headers: { "SVC-Execution-Id": { schema: { type: "string" } } },
        content: { "application/json": { schema: { $ref: "#/components/schemas/DataReady" } } },
      },
      "202": {
        description: "The timeout passed; the execution goes on",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Accepted" } } },
      },
      "400": error("endpoint.request.invalid: every parameter defect in details.errors"),
      "401": error("No key, or an invalid one"),
      "403": error("The key is not bound, of another workspace, or of the wrong kind"),
      "404": error("No endpoint answers this path"),
      "406": error("Accept does not admit application/json"),
      "429": error("Rate or concurrency limit; see Retry-After"),
      "500": error("The pipeline failed"),
      "502": error("A datasource could not be reached"),
      "503": error("No released version, or no longer side-effect-free"),
    },
  };
}

/** The document for the given endpoints (already filtered to what the key may call). */
export function openApiDocument(endpoints: DescribedEndpoint[], serverUrl: string): Json {
  const paths: Json = {};
  const ids = new Set<string>();
  for (const e of [...endpoints].sort((a, b) => a.path.localeCompare(b.path))) {
    const base = `get${e.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c) => c ? c.toUpperCase() : "")}`;
    // Paths differing only in punctuation (`/a-b`, `/a.b`) would share an id; ids are unique.
    let id = base;
    for (let n = 2; ids.has(id); n++) id = `${base}${n}`;
    ids.add(id);
    paths[e.path] = { get: operation(e, id) };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Published endpoints", version: "1" },
    servers: [{ url: `${serverUrl}/api/x` }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "SVC-API-Key" } },
      parameters: {
        ResultTtl: {
          name: "SVC-Result-TTL-Seconds",
          in: "header",
          required: false,
          schema: { type: "integer" },
        },
        ResultPageRows: {
          name: "SVC-Result-Page-Rows",
          in: "header",
          required: false,
          schema: { type: "integer" },
        },
      },
      schemas: {
        DataReady: inlineJson(dataReadyView),
        Accepted: inlineJson(acceptedView),
        ErrorEnvelope: {
          type: "object",
          required: ["error"],
          properties: {
            schema_version: { type: "integer" },
            correlation_id: { type: "string" },
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: { type: "string" },
                message: { type: "string" },
                user_message: { type: "string" },
                details: { type: "object" },
                doc_url: { type: "string" },
              },
            },
          },
        },
      },
    },
  };
}
