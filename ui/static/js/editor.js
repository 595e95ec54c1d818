// CodeMirror 6 over each textarea[data-editor] (sql or json): the textarea stays the form field,
// kept in step with the editor, so forms post as before and the page works without JavaScript.
// Each editor lives in a shadow root: CodeMirror then styles itself through a constructed
// stylesheet instead of a <style> element, which the Content-Security-Policy forbids.
import { basicSetup, EditorView } from "codemirror";
import { sql } from "@codemirror/lang-sql";
import { json } from "@codemirror/lang-json";
import { syntaxHighlighting } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";

for (const area of document.querySelectorAll("textarea[data-editor]")) {
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
      EditorView.updateListener.of((u) => {
        if (u.docChanged) area.value = u.state.doc.toString();
      }),
    ],
  });
  if (area.getAttribute("aria-invalid") === "true") view.dom.classList.add("invalid");
  shadow.append(view.dom);
  area.after(host);
  area.hidden = true;
  area.dataset.enhanced = "true";
}
