import { Card } from "./card.tsx";
/** Someone else's save that an editor's save ran into (If-Match), as the editors hold it. */
export interface Conflict {
  version: number;
  status: string;
  author: string;
  body_hash: string;
}

/** A refused save's two halves: the author's text stays in the form; theirs is shown here. */
export function SaveConflict(props: { noun: string; conflict: Conflict; text: string }) {
  const { conflict } = props;
  return (
    <Card
      class="conflict"
      role="alert"
      title={<>Someone saved this {props.noun} while you edited it</>}
      note={<>v{conflict.version} ({conflict.status.toLowerCase()}) by {conflict.author}</>}
    >
      <div class="body">
        <p>
          Your text is kept below. Their version is shown here; merge what you need, then save again
          to write over it.
        </p>
        <pre><code>{props.text}</code></pre>
      </div>
    </Card>
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

/**
 * The hash the edit started from, sent back as If-Match; after a conflict, theirs, so that saving
 * again is a deliberate write over it. Nothing when creating.
 */
export function BodyHash(props: { hash?: string; conflict?: Conflict }) {
  if (!props.hash) return null;
  return <input type="hidden" name="body_hash" value={props.conflict?.body_hash ?? props.hash} />;
}
