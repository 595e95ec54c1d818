/**
 * The product documentation pages: the Markdown files of `docs/`, one page per subject, id = the
 * file name without `.md`, title = its first `# ` heading. The tool endpoint (`docs_list`,
 * `docs_get`) and the UI's `/docs/{id}` and `/skill/{id}` serve this one source. Files are read
 * through `import.meta.url`, which `deno compile --include docs` embeds, so the executable serves
 * the pages it was built with.
 */
import { AppError } from "../errors/mod.ts";

export const DOCS_DIR = new URL("../../docs/", import.meta.url);

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

async function ids(dir: URL): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const id = entry.isFile && entry.name.endsWith(".md") ? entry.name.slice(0, -3) : "";
    if (ID_RE.test(id)) out.push(id);
  }
  return out.sort();
}

/** Every page, by id. */
export async function listDocs(dir: URL = DOCS_DIR): Promise<DocSummary[]> {
  const pages = await Promise.all((await ids(dir)).map((id) => getDoc(id, dir)));
  return pages.map(({ id, title }) => ({ id, title }));
}

/** One page; an id that names no page (or is no id at all) is 404 `docs.not_found`. */
export async function getDoc(id: string, dir: URL = DOCS_DIR): Promise<DocPage> {
  // The id grammar keeps a caller's string from naming anything outside the folder.
  if (typeof id !== "string" || !ID_RE.test(id)) {
    throw new AppError("docs.not_found", { id: String(id).slice(0, 64) });
  }
  let markdown: string;
  try {
    markdown = await Deno.readTextFile(new URL(`${id}.md`, dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new AppError("docs.not_found", { id });
    throw error;
  }
  return { id, title: titleOf(id, markdown), markdown };
}
