/** An audit row as `GET /api/v1/audit` answers it (docs/access.md#audit), as a zod schema. */
import { z } from "zod";

export const auditRowView = z.object({
  id: z.string(),
  timestamp: z.string(),
  event: z.string(),
  user_id: z.string().nullable(),
  provider: z.string().nullable(),
  workspace_id: z.string().nullable(),
  source_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
}).meta({ id: "AuditRow" });

export type AuditRecord = z.output<typeof auditRowView>;
