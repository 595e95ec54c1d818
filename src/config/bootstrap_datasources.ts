/**
 * The bootstrap datasource file (`service.auth.bootstrap-datasource-file`): a YAML or JSON list of
 * datasource definitions, or an object whose `datasources` member is that list. Startup reads and
 * checks it now and keeps the entries; importing them arrives with the datasources domain.
 */
import { parse } from "yaml";

export interface BootstrapDatasource {
  name: string;
  [field: string]: unknown;
}

/** The file's entries; throws an Error whose message says what is wrong. */
export function readBootstrapDatasources(path: string): BootstrapDatasource[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new Error(`cannot be read: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new Error(`is neither YAML nor JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  const list = Array.isArray(doc) ? doc : typeof doc === "object" && doc !== null &&
      Array.isArray((doc as Record<string, unknown>).datasources)
    ? (doc as { datasources: unknown[] }).datasources
    : undefined;
  if (!list) throw new Error("must be a list of datasources (or an object with `datasources`)");
  return list.map((entry, i) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new Error(`entry ${i} must be an object`);
    }
    const name = (entry as Record<string, unknown>).name;
    if (typeof name !== "string" || name.trim() === "") {
      throw new Error(`entry ${i} needs a name`);
    }
    return entry as BootstrapDatasource;
  });
}
