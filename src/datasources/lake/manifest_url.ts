/**
 * Where a `manifest_url` may be fetched from: only the datasource's own declared bucket or
 * endpoint; with neither declared, only an AWS object-storage host over https. `s3://` URLs are
 * translated to https. The server fetches, so every other host is refused before any request
 * leaves: this is the guard against server-side request forgery.
 */
import { AppError } from "../../errors/mod.ts";
import { classifyError } from "../connectors/common.ts";
import type { LakeDatasource } from "./types.ts";
import { parseLakeRoot } from "./validate.ts";

const AWS_S3_HOST_RE = /^s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com$/;
const MANIFEST_MAX_BYTES = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

function forbidden(reason: string): AppError {
  return new AppError("datasource.validation.lake_manifest_url_forbidden", { reason });
}

/** The declared S3-compatible endpoint (`properties.jdbc.endpoint`), as an origin URL. */
function declaredEndpoint(ds: LakeDatasource): URL | null {
  const raw = ds.properties?.jdbc?.endpoint;
  if (typeof raw !== "string" || raw === "") return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    return url;
  } catch {
    return null;
  }
}

/** `bucket.s3….amazonaws.com` (virtual host) or `s3….amazonaws.com/bucket/…` (path style). */
function awsBucketOf(url: URL): string | null {
  const host = url.hostname;
  if (AWS_S3_HOST_RE.test(host)) return url.pathname.split("/")[1] || null;
  const at = host.indexOf(".s3");
  if (at > 0 && AWS_S3_HOST_RE.test(host.slice(at + 1))) return host.slice(0, at);
  return null;
}

/**
 * The https (or declared-endpoint) URL to fetch for `manifestUrl`, or 400
 * `lake_manifest_url_forbidden` saying why not.
 */
export function manifestFetchUrl(manifestUrl: unknown, ds: LakeDatasource): URL {
  if (typeof manifestUrl !== "string" || manifestUrl === "") {
    throw forbidden("manifest_url must be a non-empty string");
  }
  const root = parseLakeRoot(ds.jdbc_url);
  const bucket = root.scheme === "s3" ? root.bucket : null;
  const endpoint = declaredEndpoint(ds);
  let url: URL;
  try {
    url = new URL(manifestUrl);
  } catch {
    throw forbidden("not a URL");
  }
  if (url.username || url.password) throw forbidden("credentials in the URL are not accepted");
  if (url.protocol === "s3:") {
    const b = url.hostname;
    if (bucket && b !== bucket) throw forbidden(`bucket ${b} is not this datasource's ${bucket}`);
    const key = url.pathname.replace(/^\/+/, "");
    url = endpoint
      ? new URL(`${endpoint.origin}/${b}/${key}`)
      : new URL(`https://${b}.s3.amazonaws.com/${key}`);
  }
  if (endpoint && url.origin === endpoint.origin) return url;
  if (url.protocol !== "https:") throw forbidden("only https (or s3://) URLs are fetched");
  if (url.port !== "") throw forbidden("object-storage hosts are reached on the default port");
  const urlBucket = awsBucketOf(url);
  if (urlBucket === null) {
    throw forbidden(
      endpoint
        ? `host ${url.hostname} is neither the declared endpoint nor AWS object storage`
        : `host ${url.hostname} is not an AWS object-storage host`,
    );
  }
  if (bucket && urlBucket !== bucket) {
    throw forbidden(`bucket ${urlBucket} is not this datasource's ${bucket}`);
  }
  return url;
}

/**
 * Fetches and parses the manifest JSON. Redirects are refused (they could leave the allowed
 * host); a network failure, non-2xx answer or oversize body is 502 `datasource_unreachable`.
 */
export async function fetchManifest(
  url: URL,
  ds: LakeDatasource,
  fetchFn: typeof fetch = fetch,
): Promise<unknown> {
  const unreachable = (reason: string, errorClass = "unreachable") =>
    new AppError("pipeline.execution.datasource_unreachable", {
      datasource: ds.name,
      error_class: errorClass,
      reason,
    });
  let response: Response;
  try {
    response = await fetchFn(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "application/json" },
    });
  } catch (e) {
    throw unreachable(`fetching the manifest failed: ${(e as Error).message}`, classifyError(e));
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    throw unreachable(`the manifest URL answered ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MANIFEST_MAX_BYTES) {
    await response.body?.cancel();
    throw unreachable(`the manifest exceeds ${MANIFEST_MAX_BYTES} bytes`, "config");
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MANIFEST_MAX_BYTES) {
    throw unreachable(`the manifest exceeds ${MANIFEST_MAX_BYTES} bytes`, "config");
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "manifest_url",
      reason: `the manifest is not JSON: ${(e as Error).message}`,
    });
  }
}
