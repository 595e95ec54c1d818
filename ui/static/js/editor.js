// CodeMirror 6 over each textarea[data-editor] (sql or json): the textarea stays the form field,
// kept in step with the editor, so forms post as before and the page works without JavaScript.
// Each editor lives in a shadow root: CodeMirror then styles itself through a constructed
// stylesheet instead of a <style> element, which the Content-Security-Policy forbids.
// A person's edit fires `input` on the textarea (so other scripts can follow it); a script's
// `setEditorText` does not, so two views kept in sync do not echo each other.
import { basicSetup, EditorView } from "codemirror";
import { EditorState } from "@codemirror/state";
import { sql } from "@codemirror/lang-sql";
import { json } from "@codemirror/lang-json";
import { syntaxHighlighting } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";

const views = new WeakMap();
let quiet = false;

function enhanceOne(area) {
  const label = document.querySelector(`label[for="${area.id}"]`)?.textContent ?? "Code";
  const host = document.createElement("div");
  host.className = "editor-host";
  const shadow = host.attachShadow({ mode: "open" });
  const look = document.createElement("link");
  look.rel = "stylesheet";
  look.href = "/css/editor.css";
  shadow.append(look);
  const view = new EditorView({
    root: shadow,
    doc: area.value,
    extensions: [
      basicSetup,
      area.dataset.editor === "json" ? json() : sql(),
      // Token classes, coloured by editor.css for both themes.
      syntaxHighlighting(classHighlighter),
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

/** Enhances every not yet enhanced code textarea under `root`. */
export function enhance(root = document) {
  for (const area of root.querySelectorAll("textarea[data-editor]:not([data-enhanced])")) {
    enhanceOne(area);
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

enhance();
