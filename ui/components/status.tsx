/** Status badges: one colour per meaning, the same for versions and executions. */
const TONE: Record<string, string> = {
  RELEASED: "ok",
  SUCCESS: "ok",
  SUCCEEDED: "ok",
  DRAFT: "warn",
  RUNNING: "info",
  PENDING: "info",
  FAILED: "bad",
  ABORTED: "",
  ARCHIVED: "",
};

export function StatusBadge(props: { status: string }) {
  const tone = TONE[props.status] ?? "";
  return <span class={`badge ${tone}`.trim()}>{props.status.toLowerCase()}</span>;
}

/** "3 min ago" from an ISO time, against `now` so the page renders the same for one request. */
export function Ago(props: { at: string; now: Date }) {
  const seconds = Math.max(0, (props.now.getTime() - Date.parse(props.at)) / 1000);
  const text = seconds < 60
    ? "just now"
    : seconds < 3600
    ? `${Math.floor(seconds / 60)} min ago`
    : seconds < 86400
    ? `${Math.floor(seconds / 3600)} h ago`
    : `${Math.floor(seconds / 86400)} d ago`;
  return <time datetime={props.at} title={props.at}>{text}</time>;
}

/** A duration in milliseconds as people read it. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
