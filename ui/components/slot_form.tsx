import type { ComponentChildren } from "preact";

/**
 * A form whose answer replaces what `#<slot>` holds. With the script it posts through htmx and
 * swaps in the answer's slot (and, with `oob`, the element it names elsewhere on the page), so the
 * page's address never holds what the answer shows once; without the script it posts as a plain
 * form and the answer is the page.
 */
export function SlotForm(props: {
  action: string;
  slot: string;
  class: string;
  csrf: string;
  oob?: string;
  children: ComponentChildren;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class}
      hx-post={props.action}
      hx-target={`#${props.slot}`}
      hx-select={`#${props.slot} > *`}
      hx-select-oob={props.oob}
      hx-swap="innerHTML"
    >
      <input type="hidden" name="_csrf" value={props.csrf} />
      {props.children}
    </form>
  );
}
