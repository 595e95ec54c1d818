/**
 * A published endpoint as it is read: one zod schema per shape, for REST responses, tool outputs
 * and the `/api/x` document alike.
 */
import { z } from "zod";

const binding = z.object({ path: z.string(), key_id: z.string(), key_name: z.string() });

export const endpointView = z.object({
  path_pattern: z.string(),
  pipeline_id: z.string(),
  pipeline_name: z.string().nullable(),
  workspace: z.string(),
  timeout_seconds: z.int(),
  enabled: z.boolean(),
  description: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  bindings: z.array(binding).describe(
    "bindings deciding for some URL of the endpoint: on its node, an ancestor or a node below; " +
      "deepest first",
  ),
}).meta({ id: "Endpoint" });

/** `POST /endpoints/bindings`: the binding, `already_bound` when it existed (200). */
export const bindingView = binding.extend({ already_bound: z.boolean().optional() });

/** A served endpoint's 202: the timeout passed and the execution goes on. */
export const acceptedView = z.object({
  execution_id: z.string(),
  result_url: z.string(),
  status_url: z.string(),
  expires_at: z.string(),
}).meta({ id: "Accepted" });

export type EndpointView = z.output<typeof endpointView>;
export type BindingView = z.output<typeof bindingView>;
