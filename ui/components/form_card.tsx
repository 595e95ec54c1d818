import type { ComponentChildren } from "preact";

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
    <section class={props.class ? `card ${props.class}` : "card"} id={props.id}>
      <header>
        <h2>{props.title}</h2>
      </header>
      <form
        method="post"
        action={props.action}
        class={`body editor-form${props.formClass ? ` ${props.formClass}` : ""}`}
      >
        <input type="hidden" name="_csrf" value={props.csrf} />
        {refusal && <p class="banner error" role="alert">{refusal.message} ({refusal.code})</p>}
        {props.children}
        <div class="actions">
          <button type="submit" class="primary">{props.submit}</button>
        </div>
      </form>
      {props.after}
    </section>
  );
}
