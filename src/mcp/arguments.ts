/**
 * Refusing a tool's arguments so that an agent can fix its call in one step
 * (docs/mcp.md#arguments): every input schema is closed, so a misspelt argument is refused by its
 * own name with the nearest argument the tool takes; a missing one is named as missing; any other
 * defect names the argument it is in. The code is the one REST gives a malformed field,
 * `pipeline.execution.invalid_parameter_type` with `details.field`
 * (docs/decisions.md#fields-without-a-code-of-their-own).
 */
import { editDistance } from "../lib/edit_distance.ts";
import type { z } from "zod";
import { AppError } from "../errors/mod.ts";
import type { AnyObjectSchema } from "./tool.ts";

/** The arguments a tool takes, required ones first, in declaration order. */
export function argumentNames(input: AnyObjectSchema): { all: string[]; required: string[] } {
  const shape = input.shape as Record<string, z.ZodType>;
  const all = Object.keys(shape);
  const required = all.filter((k) => !shape[k].safeParse(undefined).success);
  return { all: [...required, ...all.filter((k) => !required.includes(k))], required };
}

/**
 * The argument `unknown` most likely stands for: the nearest name by spelling (one edit per three
 * characters at most, or a name containing the other, as `id` in `pipeline_id`); else, when the
 * call left out exactly one required argument, that one (`datasource` sent where `name` was meant).
 */
export function nearestArgument(
  unknown: string,
  names: string[],
  missing: string[],
): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const name of names) {
    const d = editDistance(unknown, name);
    const near = d <= Math.max(1, Math.floor(Math.max(unknown.length, name.length) / 3));
    const within = unknown.toLowerCase().includes(name.toLowerCase()) ||
      name.toLowerCase().includes(unknown.toLowerCase());
    if ((near || within) && d < bestScore) {
      best = name;
      bestScore = d;
    }
  }
  return best ?? (missing.length === 1 ? missing[0] : undefined);
}

function listOf(names: string[], required: string[]): string {
  if (names.length === 0) return "no arguments";
  return names.map((n) => required.includes(n) ? `${n} (required)` : n).join(", ");
}

/**
 * The refusal for arguments `input` did not accept. An unknown argument comes first (it usually
 * explains a missing one), then a missing one, then the first other defect.
 */
export function argumentRefusal(
  tool: string,
  input: AnyObjectSchema,
  args: Record<string, unknown>,
  issues: readonly z.core.$ZodIssue[],
): AppError {
  const { all, required } = argumentNames(input);
  const missing = required.filter((n) => args[n] === undefined);
  const takes = listOf(all, required);
  const unknownIssue = issues.find((i) => i.code === "unrecognized_keys" && i.path.length === 0);
  if (unknownIssue && unknownIssue.code === "unrecognized_keys") {
    const unknown = unknownIssue.keys[0];
    const suggestion = nearestArgument(unknown, all, missing);
    const hint = suggestion ? ` (did you mean \`${suggestion}\`?)` : "";
    return new AppError("pipeline.execution.invalid_parameter_type", {
      field: unknown,
      location: "arguments",
      reason: `${tool} has no argument \`${unknown}\`${hint}; it takes ${takes}`,
      unknown: unknownIssue.keys,
      ...(suggestion ? { suggestion } : {}),
      expected: all,
    });
  }
  if (missing.length > 0) {
    return new AppError("pipeline.execution.invalid_parameter_type", {
      field: missing[0],
      location: "arguments",
      reason: `${tool} needs \`${missing[0]}\`; it takes ${takes}`,
      missing,
      expected: all,
    });
  }
  const issue = issues[0];
  const field = issue.path.map(String).join(".") || "arguments";
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field,
    location: "arguments",
    reason: issue.message,
    expected: all,
  });
}
