import type { ComponentChildren } from "preact";

/**
 * Wraps an editor's controls so a reader sees them but changes nothing: a disabled fieldset
 * disables every control inside it (the code editors read that too), and posts none of them.
 */
export function ReadOnly(props: { on: boolean; children: ComponentChildren }) {
  if (!props.on) return <>{props.children}</>;
  return <fieldset class="read-only" disabled>{props.children}</fieldset>;
}

/** An editor page's title: new, the thing's name when a reader only reads it, or Edit name. */
export function editorTitle(noun: string, mode: "new" | "edit", readOnly: boolean, name: string) {
  return mode === "new" ? `New ${noun}` : readOnly ? `${name} (read-only)` : `Edit ${name}`;
}

/** What a reader is told on an editor page they may open but not save. */
export function ReadOnlyNote(props: { noun: string; back: string }) {
  return (
    <div class="banner info" role="status">
      Read-only: you may read this {props.noun}, but changing it needs the author role.{" "}
      <a href={props.back}>Back to the {props.noun}</a>
    </div>
  );
}
