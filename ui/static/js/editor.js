// CodeMirror 6 over each textarea[data-editor] (sql or json): the textarea stays the form field,
// kept in step with the editor, so forms post as before and the page works without JavaScript.
// Each editor lives in a shadow root: CodeMirror then styles itself through a constructed
// stylesheet instead of a <style> element, and sets positions through the CSSOM, so the page's
// Content-Security-Policy allows no inline style at all.
// A person's edit fires `input` on the textarea (so other scripts can follow it); a script's
// `setEditorText` does not, so two views kept in sync do not echo each other.
// The setup is codemirror's basicSetup without the linter (nothing here lints), and a language
// loads only when the page has an editor of it: the template editor never fetches JSON's.
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { classHighlighter } from "@lezer/highlight";

// Text typed over a selection that spans lines is put in by the editor, not the browser: Chrome's
// own editing joins the lines' elements and gives the survivor a style attribute, which the
// Content-Security-Policy refuses (a console error on every such keystroke).
const typedOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== "insertText" || event.isComposing || view.composing) return false;
    if (view.state.readOnly || view.state.selection.ranges.every((r) => r.empty)) return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(event.data ?? ""), { userEvent: "input.type" });
    return true;
  },
});

const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  foldGutter(),
  drawSelection(),
  dropCursor(),
  EditorState.allowMultipleSelections.of(true),
  indentOnInput(),
  // Token classes, coloured by editor.css for both themes.
  syntaxHighlighting(classHighlighter),
  bracketMatching(),
  closeBrackets(),
  autocompletion(),
  rectangularSelection(),
  crosshairCursor(),
  highlightActiveLine(),
  highlightSelectionMatches(),
  typedOverSelection,
  keymap.of([
    ...closeBracketsKeymap,
    ...defaultKeymap,
    ...searchKeymap,
    ...historyKeymap,
    ...foldKeymap,
    ...completionKeymap,
  ]),
];

const LANGUAGES = {
  sql: () => import("@codemirror/lang-sql").then((m) => m.sql()),
  json: () => import("@codemirror/lang-json").then((m) => m.json()),
};
/** Language support by kind, once loaded. */
const loaded = new Map();
const loading = new Map();

function load(kind) {
  if (!loading.has(kind)) {
    loading.set(kind, LANGUAGES[kind]().then((support) => loaded.set(kind, support)));
  }
  return loading.get(kind);
}

const kindOf = (area) => area.dataset.editor === "json" ? "json" : "sql";
const editorCss = document.querySelector("meta[name=editor-css]")?.content ?? "/css/editor.css";
const views = new WeakMap();
let quiet = false;

function enhanceOne(area) {
  const label = document.querySelector(`label[for="${area.id}"]`)?.textContent ?? "Code";
  const host = document.createElement("div");
  host.className = "editor-host";
  const shadow = host.attachShadow({ mode: "open" });
  const look = document.createElement("link");
  look.rel = "stylesheet";
  look.href = editorCss;
  shadow.append(look);
  const view = new EditorView({
    root: shadow,
    doc: area.value,
    extensions: [
      setup,
      loaded.get(kindOf(area)),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": label }),
      // A disabled textarea (a reader's editor) stays readable and selectable, never changed.
      EditorState.readOnly.of(area.matches(":disabled")),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged) return;
        area.value = u.state.doc.toString();
        if (!quiet) area.dispatchEvent(new Event("input", { bubbles: true }));
      }),
    ],
  });
  if (area.matches(":disabled")) {
    // A reader scrolls a long text with the keyboard: the scroller takes focus itself.
    view.scrollDOM.tabIndex = 0;
    view.scrollDOM.setAttribute("aria-label", label);
  }
  if (area.getAttribute("aria-invalid") === "true") view.dom.classList.add("invalid");
  if (area.rows && area.rows < 8) view.dom.classList.add("compact");
  shadow.append(view.dom);
  area.after(host);
  area.hidden = true;
  area.dataset.enhanced = "true";
  views.set(area, view);
}

/**
 * Enhances every not yet enhanced code textarea under `root`: at once when its language is
 * loaded, else once it is (a script's `setEditorText` meanwhile lands in the textarea, which the
 * editor then starts from).
 */
export function enhance(root = document) {
  for (const area of root.querySelectorAll("textarea[data-editor]:not([data-enhanced])")) {
    if (loaded.has(kindOf(area))) enhanceOne(area);
    else {
      load(kindOf(area)).then(() => {
        if (!area.dataset.enhanced) enhanceOne(area);
      });
    }
  }
}

/** Replaces an editor's text from a script, without an `input` event. */
export function setEditorText(area, text) {
  const view = views.get(area);
  area.value = text;
  if (!view || view.state.doc.toString() === text) return;
  quiet = true;
  try {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  } finally {
    quiet = false;
  }
}

/** Re-measures the editors under `root` once it is shown (hidden editors measure nothing). */
export function remeasure(root) {
  for (const area of root.querySelectorAll("textarea[data-enhanced]")) {
    views.get(area)?.requestMeasure();
  }
}

// The page's languages first, so the editors the page starts with are there once this module
// (and so pipeline_editor.js, which imports it) has run.
await Promise.all(
  [...new Set([...document.querySelectorAll("textarea[data-editor]")].map(kindOf))].map(load),
);
enhance();
