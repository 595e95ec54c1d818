import type { ComponentChildren } from "preact";

/**
 * A control whose act asks first. It links to its page with `?confirm=<act>`, which draws the
 * dialog open, so it works without a script; `/js/app.js` instead fetches that dialog and shows
 * it modal (focus kept inside, Escape and Cancel close it).
 */
export function ConfirmLink(
  props: { href: string; class?: string; label?: string; children: ComponentChildren },
) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-label={props.label}
      aria-haspopup="dialog"
      data-confirm
    >
      {props.children}
    </a>
  );
}

/**
 * The question itself: what the act changes, Cancel (the default focus, a link back for the
 * page without a script) and the button that posts the act.
 */
export function ConfirmDialog(props: {
  id: string;
  title: string;
  action: string;
  csrf: string;
  fields?: Record<string, string>;
  confirm: string;
  danger?: boolean;
  cancel: string;
  /** htmx attributes for the form, for an act that is not a plain POST (a PATCH partial). */
  hx?: Record<`hx-${string}`, string>;
  children: ComponentChildren;
}) {
  return (
    <dialog
      id={props.id}
      class="confirm"
      open
      aria-labelledby={`${props.id}-title`}
      aria-describedby={`${props.id}-what`}
      data-confirm-dialog
    >
      <form method="post" action={props.action} {...props.hx}>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        <div id={`${props.id}-what`} class="what">{props.children}</div>
        <input type="hidden" name="_csrf" value={props.csrf} />
        {Object.entries(props.fields ?? {}).map(([name, value]) => (
          <input type="hidden" key={name} name={name} value={value} />
        ))}
        <div class="actions">
          <a class="btn" href={props.cancel} autofocus data-confirm-cancel>Cancel</a>
          <button type="submit" class={props.danger ? "danger" : "primary"}>
            {props.confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}
