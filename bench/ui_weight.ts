/**
 * Page weight and time to first byte of the browser UI's main pages, in real chromium on a cold
 * cache: each page is opened in a fresh browser context (empty cache, the session cookie only),
 * and the Chrome DevTools Protocol counts the bytes every response put on the wire (headers and
 * compressed body, `Network.loadingFinished`'s `encodedDataLength`) until the network is idle.
 * Time to first byte is the document's, from its request being sent to its response head.
 * Targets (issue 28): every non-editor page <= 60 KB transferred, each editor <= 400 KB.
 */
import type { Browser, Cookie, Page } from "playwright-core";
import { demoServer, launchBrowser, signIn } from "../tests/support/browser.ts";

const EMAIL = "bench-ui@example.com";
const FIRST = "first-password-123";
const PASSWORD = "a-better-password-456";
const KB = 1024;
const PAGE_TARGET = 60 * KB;
const EDITOR_TARGET = 400 * KB;

export interface Weight {
  name: string;
  path: string;
  target: number;
  bytes: number;
  requests: number;
  /** Bytes of the answers that came compressed (Content-Encoding br or gzip). */
  compressedBytes: number;
  ttfbMs: number;
}

/** One cold-cache load of `path` signed in with `cookies`. */
export async function weighPage(
  browser: Browser,
  baseUrl: string,
  cookies: Cookie[],
  path: string,
): Promise<Omit<Weight, "name" | "path" | "target">> {
  const context = await browser.newContext();
  try {
    await context.addCookies(cookies);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    const encoded = new Map<string, boolean>();
    let bytes = 0;
    let compressedBytes = 0;
    let requests = 0;
    let ttfbMs = NaN;
    cdp.on("Network.responseReceived", (e) => {
      const headers = Object.fromEntries(
        Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
      );
      encoded.set(e.requestId, /^(br|gzip)$/.test(headers["content-encoding"] ?? ""));
      if (e.type === "Document" && Number.isNaN(ttfbMs) && e.response.timing) {
        const t = e.response.timing;
        ttfbMs = t.receiveHeadersEnd - t.sendStart;
      }
    });
    cdp.on("Network.loadingFinished", (e) => {
      requests++;
      bytes += e.encodedDataLength;
      if (encoded.get(e.requestId)) compressedBytes += e.encodedDataLength;
    });
    const res = await page.goto(baseUrl + path, { waitUntil: "networkidle" });
    if (!res?.ok()) throw new Error(`${path}: ${res?.status()}`);
    return { bytes, requests, compressedBytes, ttfbMs };
  } finally {
    await context.close();
  }
}

/** The demo instance's pages, found the way a person clicks to them. */
async function demoPages(page: Page, baseUrl: string): Promise<[string, string, number][]> {
  await page.goto(`${baseUrl}/pipelines?prefix=demo/`);
  await page.click("text=Revenue against target");
  const pipeline = new URL(page.url()).pathname;
  await page.click(".page-head a.btn.primary");
  const runForm = new URL(page.url()).pathname;
  await page.click("button:has-text('Run pipeline')");
  await page.locator("#run-live .result-table").waitFor();
  const run = new URL(page.url()).pathname;
  return [
    ["dashboard", "/dashboard", PAGE_TARGET],
    ["pipeline page", pipeline, PAGE_TARGET],
    ["run form", runForm, PAGE_TARGET],
    ["run (finished)", run, PAGE_TARGET],
    ["result page", `${run}/result`, PAGE_TARGET],
    ["pipeline editor", `${pipeline}/edit`, EDITOR_TARGET],
    ["template editor", "/templates/edit?id=demo/shop/revenue_by_country", EDITOR_TARGET],
  ];
}

/** Every page's weight, each the median of `rounds` cold loads by bytes. */
export async function measureWeights(rounds = 3): Promise<Weight[]> {
  const server = await demoServer(EMAIL, FIRST, { SERVICE_LOG_LEVEL: "warn" });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, server.url, EMAIL, FIRST);
    await page.fill("input[name=current_password]", FIRST);
    await page.fill("input[name=new_password]", PASSWORD);
    await Promise.all([page.waitForURL("**/dashboard"), page.click("button[type=submit]")]);
    const pages = await demoPages(page, server.url);
    const cookies = await context.cookies();
    await context.close();
    const weights: Weight[] = [];
    for (const [name, path, target] of pages) {
      const loads = [];
      for (let i = 0; i < rounds; i++) {
        loads.push(await weighPage(browser, server.url, cookies, path));
      }
      loads.sort((a, b) => a.ttfbMs - b.ttfbMs);
      const median = loads[Math.floor(loads.length / 2)];
      weights.push({ name, path, target, ...median });
    }
    return weights;
  } finally {
    await browser.close();
    await server.close();
  }
}

export async function uiWeightBench(): Promise<void> {
  const weights = await measureWeights();
  console.log(
    "\nUI: page weight on a cold cache in chromium (bytes on the wire, headers included) and TTFB",
  );
  console.log(
    "  page                 transferred  compressed  requests   TTFB ms   of target",
  );
  for (const w of weights) {
    console.log(
      `  ${w.name.padEnd(20)} ${(w.bytes / KB).toFixed(1).padStart(8)} KB ${
        (w.compressedBytes / KB).toFixed(1).padStart(8)
      } KB ${String(w.requests).padStart(9)} ${w.ttfbMs.toFixed(1).padStart(9)}   ${
        (w.bytes / w.target).toFixed(2)
      } of ${w.target / KB} KB${w.bytes > w.target ? "  (over)" : ""}`,
    );
  }
}

if (import.meta.main) await uiWeightBench();
