/**
 * calculators_list, calculators_get: the built-in calculator catalogue a CALCULATOR node names
 * (pipelines/calculators.ts); instance-wide, no workspace data.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { getCalculator, listCalculators } from "../../pipelines/mod.ts";
import { defineTool, READ } from "../tool.ts";

const calculator = z.object({
  name: z.string(),
  description: z.string(),
  inputs: z.record(
    z.string(),
    z.object({ type: z.string(), required: z.boolean(), description: z.string() }),
  ),
  outputs: z.record(z.string(), z.string()).describe(
    "Output name to type; `input` means the type of the values fed in",
  ),
});

export const tools = [
  defineTool({
    name: "calculators_list",
    title: "List calculators",
    description:
      "Lists the built-in calculators a CALCULATOR node can name, with their inputs and outputs. " +
      'A node feeds inputs as literals or {"param": "<name>"} and maps outputs to derived ' +
      "parameters with `writes`.",
    floor: "read_instance",
    workspaceFree: true,
    input: z.strictObject({}),
    output: z.object({ items: z.array(calculator) }),
    annotations: READ,
    handler: () => Promise.resolve({ items: listCalculators() }),
  }),
  defineTool({
    name: "calculators_get",
    title: "Describe a calculator",
    description: "One calculator by name: its inputs (type, required) and outputs.",
    floor: "read_instance",
    workspaceFree: true,
    input: z.strictObject({
      name: z.string().max(100).describe("Calculator name, from calculators_list"),
    }),
    output: calculator,
    annotations: READ,
    handler: (_s, _ctx, args) => {
      const found = getCalculator(args.name);
      if (!found) throw new AppError("pipeline.calculator.not_found", { name: args.name });
      const { run: _, ...rest } = found;
      return Promise.resolve(rest);
    },
  }),
];
