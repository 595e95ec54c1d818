/**
 * The template entity as callers send and read it, with the zod schemas the HTTP routes (and later
 * the tool-call front end) validate with. Grammar checks that answer their own codes (the id, the
 * dialect, the type) are the service's, so the schemas take those as plain strings.
 */
import { z } from "zod";
import type { ImportRef, TemplateDialect } from "./render.ts";

export const TEMPLATE_TYPES = ["sql", "html"] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const TEMPLATE_DIALECTS: readonly TemplateDialect[] = [
  "POSTGRES",
  "MYSQL",
  "SQLITE",
  "DUCKDB",
  "LAKE",
];

/** A template body may be at most this long (the renderer's source limit). */
export const TEMPLATE_BODY_MAX = 1024 * 1024;
const TEXT_MAX = 2000;

const importSchema = z.strictObject({
  id: z.string().max(200).describe("The imported template's name"),
  version: z.int().min(1).describe("The imported version, pinned"),
  alias: z.string().max(64).describe("The name `{% render 'alias' %}` uses"),
});

const common = {
  display_name: z.string().trim().min(1).max(200).describe("Human title, e.g. `Orders by day`"),
  description: z.string().max(TEXT_MAX).nullable().optional().describe(
    "What the template is for, for people",
  ),
  imports: z.array(importSchema).max(100).optional().describe(
    'Pinned imports: `[{"id": "sales/filters/region", "version": 1, "alias": "region_filter"}]`',
  ),
  body: z.string().max(TEMPLATE_BODY_MAX).describe(
    "Liquid SQL; parameters are `:name` placeholders, never printed: " +
      "`SELECT day, count(*) AS n FROM orders {% if params.region %}WHERE region = :region" +
      "{% endif %} GROUP BY day`",
  ),
  dialect: z.string().max(32).nullable().optional().describe(
    "POSTGRES, MYSQL, SQLITE, DUCKDB or LAKE, for a sql template (fixed at creation); none " +
      "for html",
  ),
};

/** `POST /templates`. */
export const createTemplateSchema = z.object({
  id: z.string().max(1000).optional().describe(
    "The template's name, a folder path such as `sales/orders_by_day`; absent: one is " +
      "generated under test/",
  ),
  type: z.enum(TEMPLATE_TYPES).optional().describe("sql (the default) or html; fixed at creation"),
  ...common,
});
export type CreateTemplateInput = z.output<typeof createTemplateSchema>;

/** `PUT /templates`: the full body; `type` and `dialect` default to the working version's. */
export const updateTemplateSchema = z.object({
  id: z.string().max(1000).describe("The template's name, e.g. `sales/orders_by_day`"),
  type: z.enum(TEMPLATE_TYPES).optional().describe("Defaults to the working version's"),
  ...common,
});
export type UpdateTemplateInput = z.output<typeof updateTemplateSchema>;

/** One library template of `POST /templates/import`. */
export const libraryTemplateSchema = z.strictObject({
  id: z.string().max(1000),
  dialect: z.string().max(32),
  body: z.string().max(TEMPLATE_BODY_MAX),
  display_name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(TEXT_MAX).nullable().optional(),
});
export const libraryImportSchema = z.strictObject({
  templates: z.array(libraryTemplateSchema).min(1).max(500),
});
export type LibraryImportInput = z.output<typeof libraryImportSchema>;

/** The hashed content of a version: what the body hash covers (display_name is outside it). */
export interface TemplateContent {
  id: string;
  type: TemplateType;
  dialect?: TemplateDialect;
  imports: ImportRef[];
  body: string;
}

export type { TemplateFolderLevel, TemplateListRow, TemplateView } from "./views.ts";

/** Filters of the paged list and the folder listing. */
export interface TemplateFilter {
  dialect?: TemplateDialect;
  type?: TemplateType;
  q?: string;
}

/** What one library template became. */
export interface LibraryOutcome {
  id: string;
  version: number;
  status: "RELEASED";
  body_hash: string;
  outcome: "created" | "updated" | "unchanged";
}
