/**
 * The template as it is read: one zod schema per shape, for REST responses and tool outputs alike,
 * and the TypeScript types the service answers with.
 */
import { z } from "zod";
import {
  draftPointerView,
  folderLevelView,
  versionMetaView,
  versionStatusView,
} from "../versions/mod.ts";
import type { TemplateDialect } from "./render.ts";
import { TEMPLATE_DIALECTS, TEMPLATE_TYPES } from "./types.ts";

const dialect = z.enum(TEMPLATE_DIALECTS as [TemplateDialect, ...TemplateDialect[]]).optional()
  .describe(
    "sql templates only",
  );
export const importRefView = z.object({ alias: z.string(), id: z.string(), version: z.int() });

/** One version with the entity's index fields. */
export const templateView = z.object({
  id: z.string().describe("the template's name: a folder path"),
  type: z.enum(TEMPLATE_TYPES),
  dialect,
  display_name: z.string(),
  description: z.string().nullable(),
  imports: z.array(importRefView),
  body: z.string(),
  ...versionMetaView.omit({ discarded_by: true, discarded_at: true }).shape,
  current_version: z.int().nullable(),
  draft: draftPointerView,
  owner: z.string(),
}).meta({ id: "Template" });

/** A row of the paged list and of a folder level: the working version, no body. */
export const templateRowView = z.object({
  id: z.string(),
  type: z.enum(TEMPLATE_TYPES),
  dialect,
  display_name: z.string(),
  description: z.string().nullable(),
  version: z.int().nullable().describe("the draft, else the current release; null when none"),
  status: versionStatusView.nullable(),
  current_version: z.int().nullable(),
  owner: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}).meta({ id: "TemplateRow" });

/** `GET /templates?prefix=`: one folder level. */
export const templateFolderView = folderLevelView("template_count", "templates", templateRowView);

/** One stored version pinning a template (`templates_used_by`). */
export const templatePinnerView = z.object({
  kind: z.enum(["pipeline", "template"]),
  id: z.string().describe("a pipeline's id, or a template's name"),
  name: z.string(),
  version: z.int().describe("the pinning version"),
  status: versionStatusView,
  pinned_version: z.int().describe("the version of this template it pins"),
});

export const renderedSqlView = z.object({
  sql: z.string(),
  placeholders: z.array(z.string()),
  imports: z.array(importRefView),
});

/** `POST /templates/import`: what each library template became, and the counts. */
export const libraryImportView = z.object({
  templates: z.array(z.object({
    id: z.string(),
    version: z.int(),
    status: z.literal("RELEASED"),
    body_hash: z.string(),
    outcome: z.enum(["created", "updated", "unchanged"]),
  })),
  created: z.int(),
  updated: z.int(),
  unchanged: z.int(),
});

/** `DELETE /templates?name=`. */
export const templatePurgedView = z.object({ purged: z.literal(true), id: z.string() });

export type TemplateView = z.output<typeof templateView>;
export type TemplateListRow = z.output<typeof templateRowView>;
export type TemplateFolderLevel = z.output<typeof templateFolderView>;
