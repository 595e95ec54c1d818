/** Previous/next links over a paged list, keeping the other query fields. */
export function Pager(
  props: {
    base: string;
    query: Record<string, string | undefined>;
    offset: number;
    limit: number;
    total: number;
  },
) {
  const { offset, limit, total } = props;
  if (total <= limit && offset === 0) return null;
  const href = (at: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(props.query)) if (v) q.set(k, v);
    if (at > 0) q.set("offset", String(at));
    const s = q.toString();
    return s ? `${props.base}?${s}` : props.base;
  };
  return (
    <nav class="pager" aria-label="Pages">
      <span class="muted small">
        {offset + 1}–{Math.min(offset + limit, total)} of {total}
      </span>
      {offset > 0 && <a class="btn" href={href(Math.max(0, offset - limit))}>Previous</a>}
      {offset + limit < total && <a class="btn" href={href(offset + limit)}>Next</a>}
    </nav>
  );
}
