/** Published endpoints under /api/x. */
import type { CatalogueEntry } from "./entry.ts";

export const endpointErrors = {
  "endpoint.key_kind_refused": {
    status: 403,
    message: "This key kind cannot be used here: {reason}.",
    user_message: "This kind of key cannot be used here.",
  },
} as const satisfies Record<string, CatalogueEntry>;
