/**
 * A text in a line of its own with a Copy button: `/js/app.js` copies the element the button's
 * `data-copy` names. Used for what the visitor must take away (a secret shown once, a call).
 */
export function CopyText(
  props: { id: string; text: string; label: string; mono?: boolean; class?: string },
) {
  return (
    <div class={props.class ? `call ${props.class}` : "call"}>
      <code id={props.id} class={props.mono ? "mono" : undefined}>{props.text}</code>
      <button type="button" class="small" data-copy={props.id} aria-label={props.label}>
        Copy
      </button>
    </div>
  );
}
