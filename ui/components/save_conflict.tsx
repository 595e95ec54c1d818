/** A refused save's two halves: the author's text stays in the form; theirs is shown here. */
export function SaveConflict(
  props: { noun: string; version: number; status: string; author: string; text: string },
) {
  return (
    <section class="card conflict" role="alert">
      <header>
        <h2>Someone saved this {props.noun} while you edited it</h2>
        <span class="muted small">
          v{props.version} ({props.status.toLowerCase()}) by {props.author}
        </span>
      </header>
      <div class="body">
        <p>
          Your text is kept below. Their version is shown here; merge what you need, then save again
          to write over it.
        </p>
        <pre><code>{props.text}</code></pre>
      </div>
    </section>
  );
}

/** The refusal of a whole form, when no single field is to blame. */
export function FormError(props: { code: string; message: string }) {
  return (
    <div class="banner error" role="alert">
      <strong class="mono">{props.code}</strong> {props.message}
    </div>
  );
}
