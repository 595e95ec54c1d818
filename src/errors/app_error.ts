import { catalogue, type CatalogueEntry, type ErrorCode, renderMessage } from "./catalogue.ts";

/** Details carried by an error; code-specific, always an object. */
export type ErrorDetails = Record<string, unknown>;

/** Rarely needed extras of an AppError. */
export interface AppErrorOptions {
  /**
   * Answers this status instead of the catalogue's, for the few codes the spec gives a second
   * status in another place (e.g. `auth.login.domain_not_allowed`: 403 at login, 400 at invite).
   */
  status?: number;
}

/** The one error type of the service: a catalogue code and its details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Extra response headers the front end should send (e.g. `Allow`, `Retry-After`). */
  readonly headers: Record<string, string>;
  readonly #status: number | undefined;

  constructor(
    code: ErrorCode,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
    options: AppErrorOptions = {},
  ) {
    const entry: CatalogueEntry = catalogue[code];
    super(renderMessage(entry.message, details));
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.#status = options.status;
  }

  /** The catalogue's status, unless the error was raised with an override. */
  get status(): number {
    return this.#status ?? catalogue[this.code].status;
  }

  get userMessage(): string {
    return catalogue[this.code].user_message;
  }
}

/** The `error` member of the error envelope (spec 2 §2.1). */
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
