/** Running a pipeline through the executions service and reading its stream to the end. */
import type { EventFrame } from "../../src/executions/event_order.ts";
import type { ExecuteInput, ExecutionService } from "../../src/executions/service.ts";

type Defaulted = "parameters" | "correlationId" | "triggeredVia";

/**
 * Executes `input` (no parameters, a fresh correlation id and `REST` unless given) and collects
 * every frame until the stream ends; the stream is released.
 */
export async function runToEnd(
  executions: Pick<ExecutionService, "execute">,
  input: Omit<ExecuteInput, Defaulted> & Partial<Pick<ExecuteInput, Defaulted>>,
): Promise<{ id: string; frames: EventFrame[] }> {
  const started = await executions.execute({
    parameters: {},
    correlationId: crypto.randomUUID(),
    triggeredVia: "REST",
    ...input,
  });
  const frames: EventFrame[] = [];
  for await (const f of started.frames) frames.push(f);
  await started.release();
  return { id: started.executionId, frames };
}
