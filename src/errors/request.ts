/** The request itself and the protocol around it: routing, body, rate limits, idempotency, readiness, the catch-all 500. */
import type { CatalogueEntry } from "./entry.ts";

export const requestErrors = {
  "request.not_found": {
    status: 404,
    message: "No route matches {method} {path}.",
    user_message: "The requested resource does not exist.",
  },
  "request.method_not_allowed": {
    status: 405,
    message: "{method} is not allowed on {path}; allowed methods: {allowed}.",
    user_message: "This action is not available here.",
  },
  "request.malformed_json": {
    status: 400,
    message: "The request body is not valid JSON: {reason}.",
    user_message: "The request could not be read.",
  },
  "request.body_too_large": {
    status: 413,
    message: "The request body exceeds the limit of {limit_bytes} bytes.",
    user_message: "The request is too large.",
  },
  "request.body_timeout": {
    status: 408,
    message: "The request body did not arrive within {timeout_seconds} seconds of its head.",
    user_message: "The request took too long to arrive. Try again.",
  },
  "request.unsupported_media_type": {
    status: 415,
    message: "The request body is {content_type}; this route reads {expected}.",
    user_message: "The request format is not supported.",
  },
  "request.not_acceptable": {
    status: 406,
    message: "This route answers {produces}; the Accept header did not allow it.",
    user_message: "The requested format is not available.",
  },
  "request.origin_forbidden": {
    status: 403,
    message: "Origin {origin} may not call {path}; only {allowed} may.",
    user_message: "This page may not call the service.",
  },
  "request.host_forbidden": {
    status: 403,
    message: "Host {host} is not a name this service answers {path} on.",
    user_message: "This address may not call the service.",
  },
  "service.unavailable": {
    status: 503,
    message: "The service is not ready: {reason}.",
    user_message: "The service is temporarily unavailable. Try again shortly.",
  },
  "rate_limit.exceeded": {
    status: 429,
    message: "The request budget is exhausted; retry after {retry_after} seconds.",
    user_message: "Too many requests. Slow down and retry shortly.",
  },
  "rate_limit.unavailable": {
    status: 429,
    message: "The rate limiter cannot decide right now; retry shortly.",
    user_message: "The service is busy. Retry shortly.",
  },
  "idempotency.key_reused_for_different_request": {
    status: 409,
    message: "Idempotency-Key '{key}' was already used for a different request.",
    user_message: "This request key was already used for something else. Use a new key.",
  },
  "internal.unexpected": {
    status: 500,
    message: "An unexpected error occurred. Quote the correlation id when reporting it.",
    user_message: "Something went wrong on our side.",
  },
} as const satisfies Record<string, CatalogueEntry>;
