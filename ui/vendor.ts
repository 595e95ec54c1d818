/**
 * Browser libraries served from `/vendor/**` out of their npm packages. Text imports put the
 * files in the module graph, so they are pinned by deno.lock and embedded in a compiled binary;
 * nothing is fetched from a CDN at run time. CodeMirror's ES modules keep their bare imports and
 * are resolved in the browser by the editor pages' import map (ui/static_files.ts).
 */
import htmx from "htmx.org/dist/htmx.min.js" with { type: "text" };
import uplot from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import cmState from "@codemirror/state" with { type: "text" };
import cmView from "@codemirror/view" with { type: "text" };
import cmLanguage from "@codemirror/language" with { type: "text" };
import cmCommands from "@codemirror/commands" with { type: "text" };
import cmSearch from "@codemirror/search" with { type: "text" };
import cmAutocomplete from "@codemirror/autocomplete" with { type: "text" };
import cmStreamparser from "@codemirror/streamparser" with { type: "text" };
import cmSql from "@codemirror/lang-sql" with { type: "text" };
import cmJson from "@codemirror/lang-json" with { type: "text" };
import lezerCommon from "@lezer/common" with { type: "text" };
import lezerHighlight from "@lezer/highlight" with { type: "text" };
import lezerLr from "@lezer/lr" with { type: "text" };
import lezerJson from "@lezer/json" with { type: "text" };
import styleMod from "style-mod" with { type: "text" };
import w3cKeyname from "w3c-keyname" with { type: "text" };
import crelt from "crelt" with { type: "text" };
import clusterBreak from "@marijn/find-cluster-break" with { type: "text" };

const JS = "text/javascript; charset=utf-8";

/**
 * The ES modules behind the editor, by the bare specifier their imports use. `codemirror`'s
 * basicSetup is not among them: ui/static/js/editor.js assembles the parts it uses, which leaves
 * out the linter (no editor here lints).
 */
const MODULES: Record<string, string> = {
  "@codemirror/state": cmState,
  "@codemirror/view": cmView,
  "@codemirror/language": cmLanguage,
  "@codemirror/commands": cmCommands,
  "@codemirror/search": cmSearch,
  "@codemirror/autocomplete": cmAutocomplete,
  "@codemirror/streamparser": cmStreamparser,
  "@codemirror/lang-sql": cmSql,
  "@codemirror/lang-json": cmJson,
  "@lezer/common": lezerCommon,
  "@lezer/highlight": lezerHighlight,
  "@lezer/lr": lezerLr,
  "@lezer/json": lezerJson,
  "style-mod": styleMod,
  "w3c-keyname": w3cKeyname,
  "crelt": crelt,
  "@marijn/find-cluster-break": clusterBreak,
};

/** `@codemirror/lang-sql` → `cm-codemirror-lang-sql.js`: one flat name per module. */
const fileOf = (specifier: string) => `cm-${specifier.replace(/^@/, "").replaceAll("/", "-")}.js`;

/** Every vendored file by its name under `/vendor/`. */
export const VENDOR_FILES: Record<string, { body: string; type: string }> = {
  "htmx.min.js": { body: htmx, type: JS },
  "uPlot.iife.min.js": { body: uplot, type: JS },
  "uPlot.min.css": { body: uplotCss, type: "text/css; charset=utf-8" },
  ...Object.fromEntries(
    Object.entries(MODULES).map(([spec, body]) => [fileOf(spec), { body, type: JS }]),
  ),
};

/** Bare specifier → the file's name under `/vendor/`, for the import map. */
export const VENDOR_MODULES: Record<string, string> = Object.fromEntries(
  Object.keys(MODULES).map((spec) => [spec, fileOf(spec)]),
);
