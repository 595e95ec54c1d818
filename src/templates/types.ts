/**
 * The template entity (spec 2 §2.3) as callers send and read it, with the zod schemas the HTTP
 * routes (and later the tool-call front end) validate with. Grammar checks that answer their own
 * codes (the id, the dialect, the type) are the service's, so the schemas take those as plain
 * strings.
 */
import { z } from "zod";
import type { DraftPointer, VersionStatus } from "../versions/mod.ts";
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
  id: z.string().max(200),
  version: z.int().min(1),
  alias: z.string().max(64),
});

const common = {
  display_name: z.string().trim().min(1).max(200),
  description: z.string().max(TEXT_MAX).nullable().optional(),
  imports: z.array(importSchema).max(100).optional(),
  body: z.string().max(TEMPLATE_BODY_MAX),
  dialect: z.string().max(32).nullable().optional(),
};

/** `POST /templates`. */
export const createTemplateSchema = z.object({
  id: z.string().max(1000).optional(),
  type: z.enum(TEMPLATE_TYPES).optional(),
  ...common,
});
export type CreateTemplateInput = z.output<typeof createTemplateSchema>;

/** `PUT /templates`: the full body; `type` and `dialect` default to the working version's. */
export const updateTemplateSchema = z.object({
  id: z.string().max(1000),
  type: z.enum(TEMPLATE_TYPES).optional(),
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

/** A template as reads answer it: one version with the entity's index fields. */
export interface TemplateView {
  id: string;
  type: TemplateType;
  /** Absent for html templates. */
  dialect?: TemplateDialect;
  display_name: string;
  description: string | null;
  imports: ImportRef[];
  body: string;
  version: number;
  status: VersionStatus;
  body_hash: string;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
  released_at: string | null;
  released_by: string | null;
  current_version: number | null;
  draft: DraftPointer | null;
  owner: string;
}

/** A row of the paged list and of a folder level. */
export interface TemplateListRow {
  id: string;
  type: TemplateType;
  dialect?: TemplateDialect;
  display_name: string;
  description: string | null;
  /** The working version: the draft, else the current release; null when none is live. */
  version: number | null;
  status: VersionStatus | null;
  current_version: number | null;
  owner: string;
  created_at: string;
  updated_at: string;
}

/** One level of the folder listing. */
export interface TemplateFolderLevel {
  prefix: string;
  folders: { path: string; segment: string; template_count: number }[];
  templates: TemplateListRow[];
  total: number;
  has_more: boolean;
}

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
