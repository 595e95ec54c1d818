import type { ComponentChildren, JSX } from "preact";
import { FormActions } from "./field.tsx";

/**
 * A titled card: its heading, and beside it a muted `note` or other `side` content (links,
 * actions); further attributes (an id, data attributes) go on the section.
 */
export function Card(
  props: Omit<JSX.IntrinsicElements["section"], "title"> & Record<`data-${string}`, unknown> & {
    title: ComponentChildren;
    note?: ComponentChildren;
    side?: ComponentChildren;
  },
) {
  const { title, note, side, children, class: cls, ...attrs } = props;
  return (
    <section class={cls ? `card ${cls}` : "card"} {...attrs}>
      <header>
        <h2>{title}</h2>
        {note && <span class="muted small">{note}</span>}
        {side}
      </header>
      {children}
    </section>
  );
}

/** A refusal as a form's banner shows it: its message and its code. */
export interface Refusal {
  code: string;
  message: string;
}

/**
 * A card that is one plain form: its title, the posted CSRF token, the refusal that concerns no
 * single field (given only then), the fields (the children) and the submit button; `after`
 * below the form.
 */
export function FormCard(props: {
  id: string;
  class?: string;
  title: ComponentChildren;
  action: string;
  csrf: string;
  formClass?: string;
  refusal?: Refusal | false | null;
  submit: ComponentChildren;
  children: ComponentChildren;
  /** Drawn in the card below the form. */
  after?: ComponentChildren;
}) {
  const { refusal } = props;
  return (
    <Card id={props.id} class={props.class} title={props.title}>
      <form
        method="post"
        action={props.action}
        class={`body editor-form${props.formClass ? ` ${props.formClass}` : ""}`}
      >
        <input type="hidden" name="_csrf" value={props.csrf} />
        {refusal && <p class="banner error" role="alert">{refusal.message} ({refusal.code})</p>}
        {props.children}
        <FormActions submit={props.submit} />
      </form>
      {props.after}
    </Card>
  );
}
