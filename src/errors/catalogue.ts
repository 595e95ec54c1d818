/**
 * The error catalogue: every code the service answers, as data, one file per family. A handler
 * raises a code and its details; status, messages and the documentation anchor come from here.
 * `user_message` is safe to show anyone.
 *
 * Later issues add their codes to a family file (or a new family listed here), and only there.
 * Every entry stays a literal (`as const`): the message types of entry.ts read them.
 */
import { authErrors } from "./auth.ts";
import { datasourceErrors } from "./datasource.ts";
import { docsErrors } from "./docs.ts";
import { endpointErrors } from "./endpoint.ts";
import type { CatalogueEntry, Placeholders } from "./entry.ts";
import { executionErrors } from "./execution.ts";
import { pipelineErrors } from "./pipeline.ts";
import { requestErrors } from "./request.ts";
import { templateErrors } from "./template.ts";
import { workspaceErrors } from "./workspace.ts";

export type { CatalogueEntry } from "./entry.ts";
export { placeholdersOf, renderMessage } from "./entry.ts";

/** The families, by file; a code belongs to exactly one (the catalogue test checks it). */
export const families = {
  request: requestErrors,
  auth: authErrors,
  endpoint: endpointErrors,
  workspace: workspaceErrors,
  datasource: datasourceErrors,
  template: templateErrors,
  pipeline: pipelineErrors,
  execution: executionErrors,
  docs: docsErrors,
} as const;

export const catalogue = {
  ...requestErrors,
  ...authErrors,
  ...endpointErrors,
  ...workspaceErrors,
  ...datasourceErrors,
  ...templateErrors,
  ...pipelineErrors,
  ...executionErrors,
  ...docsErrors,
} as const satisfies Record<string, CatalogueEntry>;

/** Every code the service can answer. */
export type ErrorCode = keyof typeof catalogue;

/** The message literal of `C` (a union of messages for a union of codes). */
export type MessageOf<C extends ErrorCode> = (typeof catalogue)[C]["message"];

/** The detail names the message of `C` renders; for a union of codes, those of every member. */
export type DetailNames<C extends ErrorCode> = Placeholders<MessageOf<C>>;

/**
 * A detail a message renders: anything but null and undefined, which would render as `?`.
 * Other details (extra fields of the envelope) are free.
 */
export type DetailsOf<C extends ErrorCode> =
  & { readonly [K in DetailNames<C>]: NonNullable<unknown> }
  & Readonly<Record<string, unknown>>;

/** Codes whose message is not a literal type; must stay empty, or their details go unchecked. */
type WideMessages = {
  [C in ErrorCode]: string extends MessageOf<C> ? C : never;
}[ErrorCode];
const _everyMessageIsLiteral: [WideMessages] extends [never] ? true : WideMessages = true;
