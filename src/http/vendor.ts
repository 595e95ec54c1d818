/**
 * Browser libraries served from `/vendor/**` out of their npm packages. Text imports put the
 * files in the module graph, so they are pinned by deno.lock and embedded in a compiled binary;
 * nothing is fetched from a CDN at run time.
 */
import htmx from "htmx.org/dist/htmx.min.js" with { type: "text" };
import uplot from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };

const FILES: Record<string, { body: string; type: string }> = {
  "htmx.min.js": { body: htmx, type: "text/javascript; charset=utf-8" },
  "uPlot.iife.min.js": { body: uplot, type: "text/javascript; charset=utf-8" },
  "uPlot.min.css": { body: uplotCss, type: "text/css; charset=utf-8" },
};

/** The vendored file by name, or undefined. */
export function vendorFile(name: string): { body: string; type: string } | undefined {
  return Object.hasOwn(FILES, name) ? FILES[name] : undefined;
}
