import { equal, match, ok } from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { Field } from "./field.tsx";

const draw = (error?: string, hint?: string) =>
  renderToString(
    h(Field, {
      id: "x",
      label: "Name",
      error,
      hint,
      children: (a) => h("input", { ...a, name: "name" }),
    }),
  );

Deno.test("a field ties its control to its label, hint and error", () => {
  const html = draw("Too short", "Letters only");
  match(html, /<label for="x">Name<\/label>/);
  match(html, /<input id="x" aria-invalid="true" aria-describedby="x-hint x-error" name="name"/);
  match(html, /<span class="hint" id="x-hint">Letters only<\/span>/);
  match(html, /<span class="error" id="x-error" role="alert">Too short<\/span>/);
});

Deno.test("a field without an error claims no invalidity and names only what exists", () => {
  const html = draw(undefined, "Letters only");
  ok(!html.includes("aria-invalid"));
  match(html, /aria-describedby="x-hint"/);
  equal(draw().includes("aria-describedby"), false);
});
