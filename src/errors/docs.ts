/** The documentation pages (docs/*.md) served to agents and the browser. */
import type { CatalogueEntry } from "./entry.ts";

export const docsErrors = {
  "docs.not_found": {
    status: 404,
    message: "No documentation page {id}; docs_list names the pages.",
    user_message: "The documentation page does not exist.",
  },
} as const satisfies Record<string, CatalogueEntry>;
