import { equal, match, ok } from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { Field, SelectField } from "./field.tsx";

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

Deno.test("a select field marks the current option and offers an empty one only when asked", () => {
  const draw = (empty?: string) =>
    renderToString(
      h(SelectField, {
        id: "s",
        label: "Mode",
        error: "Pick one",
        select: { name: "mode" },
        value: "b",
        empty,
        options: [["a", "Alpha"], ["b", "Beta"]],
      }),
    );
  const html = draw("none");
  match(html, /<select id="s" aria-invalid="true" aria-describedby="s-error" name="mode">/);
  match(html, /<option value>none<\/option><option value="a">Alpha<\/option>/);
  match(html, /<option value="b" selected>Beta<\/option>/);
  ok(!draw().includes("<option value>"));
});
