/**
 * A dependency the service cannot answer without (the metadata store) is unreachable right now:
 * the same request may well succeed shortly. The store adapters raise it for an outage (see
 * store/outage.ts, which knows each driver's errors); front ends answer it as 503
 * `service.unavailable` through `toAppError` (errors/), never as a 500.
 */
export class Unavailable extends Error {
  /** What is unreachable and why, safe to show: no address, no credentials. */
  readonly reason: string;

  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.name = "Unavailable";
    this.reason = reason;
  }
}
