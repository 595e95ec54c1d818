/**
 * The product documentation pages: the Markdown files of `docs/`, one page per subject, id = the
 * file name without `.md`, title = its first `# ` heading, and `errors`, the error-code reference
 * written from the catalogue. The tool endpoint (`docs_list`, `docs_get`) and the UI's
 * `/docs/{id}` and `/skill/{id}` serve this one source (`/docs/errors` is its own page, a table).
 * Files are read through the assets module, which the executable embeds them in, so it serves the
 * pages it was built with.
 */
import { AppError, catalogue } from "../errors/mod.ts";
import { type Assets, assets } from "../lib/assets.ts";

/** A `docs_list` row. */
export interface DocSummary {
  id: string;
  title: string;
}

/** A `docs_get` answer. */
export interface DocPage extends DocSummary {
  markdown: string;
}

const ID_RE = /^[a-z][a-z0-9_-]{0,63}$/;

function titleOf(id: string, markdown: string): string {
  return /^# +(.+?)\s*$/m.exec(markdown)?.[1] ?? id;
}

async function ids(from: Assets): Promise<string[]> {
  return (await from.files("docs/"))
    .map((name) => name.endsWith(".md") ? name.slice(0, -3) : "")
    .filter((id) => ID_RE.test(id)).sort();
}

const ERRORS: DocSummary = { id: "errors", title: "Error codes" };

/** The error-code reference as Markdown: every code with its status and what it means. */
function errorsMarkdown(): string {
  const rows = Object.entries(catalogue).sort(([a], [b]) => a.localeCompare(b)).map((
    [code, e],
  ) => `| \`${code}\` | ${e.status} | ${e.user_message} ${e.message} |`.replaceAll("\n", " "));
  return [
    `# ${ERRORS.title}`,
    "",
    "Every error answer carries `error.code`; its `doc_url` links to the code's anchor on",
    "`/docs/errors`. The message's `{names}` are filled from `error.details`.",
    "",
    "| Code | HTTP | Meaning |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

/**
 * Every page, by id, then the error codes (`from`: the shipped `docs/` unless a test gives a
 * folder of its own).
 */
export async function listDocs(from: Assets = assets): Promise<DocSummary[]> {
  const pages = await Promise.all((await ids(from)).map((id) => getDoc(id, from)));
  return [...pages.map(({ id, title }) => ({ id, title })), ERRORS];
}

/** One page; an id that names no page (or is no id at all) is 404 `docs.not_found`. */
export async function getDoc(id: string, from: Assets = assets): Promise<DocPage> {
  // The id grammar keeps a caller's string from naming anything outside the folder.
  if (typeof id !== "string" || !ID_RE.test(id)) {
    throw new AppError("docs.not_found", { id: String(id).slice(0, 64) });
  }
  if (id === ERRORS.id) return { ...ERRORS, markdown: errorsMarkdown() };
  let markdown: string;
  try {
    markdown = await from.readText(`docs/${id}.md`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new AppError("docs.not_found", { id });
    throw error;
  }
  return { id, title: titleOf(id, markdown), markdown };
}
