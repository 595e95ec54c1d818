import { ConfirmLink } from "./confirm.tsx";

/** The three membership flags (docs/decisions.md#roles); all false is a viewer. */
export interface Flags {
  author: boolean;
  promoter: boolean;
  admin: boolean;
}

/** One member as the members table shows them. */
export interface MemberView extends Flags {
  user_id: string;
  email: string;
  display_name: string;
  joined_at: string;
  /** The person looking at the page. */
  self: boolean;
}

/** A refusal of an act on one row, shown on that row. */
export interface RowError {
  code: string;
  message: string;
}

export const FLAG_NAMES = ["author", "promoter", "admin"] as const;

const FLAG_LABELS: Record<keyof Flags, string> = {
  author: "Author",
  promoter: "Promoter",
  admin: "Admin",
};

/** The flags held, as words: "admin, author" or "viewer". */
export function flagWords(f: Flags): string {
  const held = FLAG_NAMES.filter((n) => f[n]);
  return held.length === 0 ? "viewer" : held.join(", ");
}

/**
 * One member's row: their three flags as checkboxes tied to the row's form (a `<form>` cannot
 * wrap a table row, so the inputs name it with `form=`). Save posts the row; with the script it
 * goes through htmx and the answer replaces the row, a refusal (the last admin) shown on it.
 * Remove asks first.
 */
export function MemberRow(props: {
  m: MemberView;
  /** The workspace's page, which the no-script forms return to. */
  base: string;
  /** The workspace's name, as the partials' paths hold it. */
  workspace: string;
  csrf: string;
  error?: RowError;
  saved?: boolean;
}) {
  const { m } = props;
  const formId = `member-${m.user_id}`;
  const action = `/partials/workspaces/${props.workspace}/members/${m.user_id}/flags`;
  const who = m.display_name || m.email;
  return (
    <tr id={formId} class={props.error ? "has-error" : undefined}>
      <td>
        <span class="title">{who}</span>
        {m.self && <span class="badge info you">you</span>}
        <div class="muted small">{m.email}</div>
        {props.error && (
          <p class="row-error" role="alert">
            {props.error.message} <span class="mono small">({props.error.code})</span>
          </p>
        )}
        {props.saved && <p class="row-saved" role="status">Saved: {flagWords(m)}.</p>}
      </td>
      <td class="nowrap joined" data-label="Joined">{m.joined_at.slice(0, 10)}</td>
      {FLAG_NAMES.map((flag) => (
        <td key={flag} class="flag" data-label={FLAG_LABELS[flag]}>
          <label class="sr-only" for={`${formId}-${flag}`}>{FLAG_LABELS[flag]}: {who}</label>
          <input
            type="checkbox"
            id={`${formId}-${flag}`}
            name={flag}
            value="true"
            form={`${formId}-form`}
            checked={m[flag]}
          />
        </td>
      ))}
      <td class="row-actions nowrap">
        <form
          id={`${formId}-form`}
          method="post"
          action={action}
          class="inline"
          hx-post={action}
          hx-target={`#${formId}`}
          hx-swap="outerHTML"
        >
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button type="submit" class="small" aria-label={`Save flags of ${who}`}>Save</button>
        </form>
        <ConfirmLink
          class="btn ghost small danger"
          href={`${props.base}?confirm=remove&user=${m.user_id}`}
          label={`Remove ${who}`}
        >
          Remove
        </ConfirmLink>
      </td>
    </tr>
  );
}

/** The three flags as checkboxes for a form (add by email). */
export function FlagChecks(props: { idPrefix: string; flags: Flags }) {
  return (
    <fieldset class="flag-checks">
      <legend>Flags (none: a viewer, who may read and run)</legend>
      {FLAG_NAMES.map((flag) => (
        <label key={flag} for={`${props.idPrefix}-${flag}`}>
          <input
            type="checkbox"
            id={`${props.idPrefix}-${flag}`}
            name={flag}
            value="true"
            checked={props.flags[flag]}
          />{" "}
          {FLAG_LABELS[flag]}
        </label>
      ))}
    </fieldset>
  );
}
