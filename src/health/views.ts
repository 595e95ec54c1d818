/** What `/health`, `/ready` and `/info` answer, as zod schemas. */
import { z } from "zod";

const status = z.enum(["UP", "DOWN"]);

export const healthView = z.object({
  status: status.describe("DOWN when any component is DOWN"),
  version: z.string(),
  components: z.object({ database: status, shared_store: status, staging_engine: status }),
});

export const readyView = z.object({ ready: z.literal(true) });

export const buildInfoView = z.object({
  version: z.string(),
  build_time: z.string().nullable(),
  commit: z.string().nullable(),
});

export type BuildInfo = z.output<typeof buildInfoView>;
