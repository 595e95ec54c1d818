/** A template rendered with no parameters: its SQL and the placeholders it binds, or why not. */
export function RenderPreview(
  props: { sql?: string; placeholders?: string[]; error?: string },
) {
  if (props.error !== undefined) {
    return <div class="banner error schema-error" role="status">{props.error}</div>;
  }
  return (
    <div role="status">
      <p class="muted small preview-binds">
        binds {props.placeholders?.length
          ? props.placeholders.map((p) => `:${p}`).join(", ")
          : "no parameters"}
      </p>
      <pre class="sql body-pre"><code>{props.sql}</code></pre>
    </div>
  );
}
