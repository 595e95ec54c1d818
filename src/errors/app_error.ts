import { Unavailable } from "../lib/unavailable.ts";
import {
  catalogue,
  type CatalogueEntry,
  type DetailNames,
  type DetailsOf,
  type ErrorCode,
  renderMessage,
} from "./catalogue.ts";

/** Details carried by an error; code-specific, always an object. */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/** Rarely needed extras of an AppError. */
export interface AppErrorOptions {
  /**
   * Answers this status instead of the catalogue's, for the few codes that answer a second status
   * in another place (e.g. `auth.login.domain_not_allowed`: 403 at login, 400 at invite).
   */
  status?: number;
  /**
   * Replaces the catalogue's two texts for the few situations a code covers that its texts do not
   * describe: a browser session on `/api/x` is `auth.api_key.missing`
   * (docs/endpoints.md#a-browser-at-apix), but "send a session cookie" would be wrong advice there.
   * The code and status stay the contract.
   */
  message?: string;
  userMessage?: string;
}

/**
 * What follows the code: the details, required exactly when the message has placeholders, then
 * extra response headers and options.
 */
export type AppErrorArgs<C extends ErrorCode> = [DetailNames<C>] extends [never]
  ? [details?: DetailsOf<C>, headers?: Record<string, string>, options?: AppErrorOptions]
  : [details: DetailsOf<C>, headers?: Record<string, string>, options?: AppErrorOptions];

/** The one error type of the service: a catalogue code and its details. */
class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Extra response headers the front end should send (e.g. `Allow`, `Retry-After`). */
  readonly headers: Record<string, string>;
  readonly #status: number | undefined;
  readonly #texts: { message?: string; userMessage?: string };

  constructor(
    code: ErrorCode,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
    options: AppErrorOptions = {},
  ) {
    const entry: CatalogueEntry = catalogue[code];
    super(options.message ?? renderMessage(entry.message, details));
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.#status = options.status;
    this.#texts = { message: options.message, userMessage: options.userMessage };
  }

  /** The catalogue's status, unless the error was raised with an override. */
  get status(): number {
    return this.#status ?? catalogue[this.code].status;
  }

  get userMessage(): string {
    return this.#texts.userMessage ?? catalogue[this.code].user_message;
  }

  /** The same error with `extra` joined to its details (code, headers and status kept). */
  withDetails(extra: ErrorDetails): AppError {
    return new AppError(this.code, { ...this.details, ...extra }, this.headers, {
      status: this.#status,
      ...this.#texts,
    });
  }
}

/**
 * `new AppError(code, details)`. A class constructor cannot take its own type parameter, and a
 * generic class would let `instanceof` widen `code` to `any`; so the class stays plain and is
 * exported as this constructor type, which checks the details against the code's message at every
 * call site. The class keeps its name: failure records and logs show `AppError`.
 */
export interface AppErrorConstructor {
  new <C extends ErrorCode>(code: C, ...args: AppErrorArgs<C>): AppError;
  readonly prototype: AppError;
}

/**
 * An AppError rebuilt from its code and details after crossing a boundary (a worker's message):
 * the details were checked where the error was raised, so they are taken as they come.
 */
export function reviveAppError(
  code: ErrorCode,
  details: ErrorDetails,
  headers: Record<string, string> = {},
): AppError {
  return new AppError(code, details, headers);
}

/**
 * The one mapping of anything thrown to an AppError, for every front end and the executor: an
 * AppError as it is; an outage of the metadata store (lib's `Unavailable`, raised by the store
 * adapters) as 503 `service.unavailable` with `Retry-After: 1`; anything else as 500
 * `internal.unexpected`. The original is kept as the `cause`, for the log.
 */
export function toAppError(thrown: unknown): AppError {
  if (thrown instanceof AppError) return thrown;
  const error = thrown instanceof Unavailable
    ? new AppError("service.unavailable", { reason: thrown.reason }, { "Retry-After": "1" })
    : new AppError("internal.unexpected");
  error.cause = thrown;
  return error;
}

type CheckedAppError = AppError;
const CheckedAppError: AppErrorConstructor = AppError;
export { CheckedAppError as AppError };

/** The `error` member of the error envelope (docs/http.md). */
export interface ErrorBody {
  code: string;
  message: string;
  user_message: string;
  details: ErrorDetails;
  doc_url: string;
}

/** Builds the `error` object; `baseUrl` is the service's external origin. */
export function errorBody(error: AppError, baseUrl: string): ErrorBody {
  return {
    code: error.code,
    message: error.message,
    user_message: error.userMessage,
    details: error.details,
    doc_url: `${baseUrl}/docs/errors#${error.code}`,
  };
}
