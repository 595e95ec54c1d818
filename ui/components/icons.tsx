/**
 * The handful of line icons the shell uses, drawn inline so no icon font or sprite is fetched.
 * Paths are simple strokes on a 24-unit grid.
 */
const PATHS = {
  dashboard: "M3 13h8V3H3zm10 8h8V11h-8zM3 21h8v-6H3zm10-18v6h8V3z",
  pipelines:
    "M5 6a2 2 0 1 0 0-.01M19 18a2 2 0 1 0 0-.01M19 6a2 2 0 1 0 0-.01M7 6h10M5 8v4a2 2 0 0 0 2 2h10a2 2 0 0 1 2 2",
  templates:
    "M8 4H6a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2h-2M9 9l-2 3 2 3m6-6 2 3-2 3",
  runs: "M12 7v5l3 2M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0",
  datasources:
    "M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3m0 0v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3",
  endpoints:
    "M8 4H7a2 2 0 0 0-2 2v4l-2 2 2 2v4a2 2 0 0 0 2 2h1m8-16h1a2 2 0 0 1 2 2v4l2 2-2 2v4a2 2 0 0 1-2 2h-1",
  audit: "M12 3 4 6v6c0 4.5 3.4 8 8 9 4.6-1 8-4.5 8-9V6zM9 12l2 2 4-4",
  users:
    "M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8M2 21v-1a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v1M16 3.1a4 4 0 0 1 0 7.8M19 14.2a6 6 0 0 1 3 5.3V21",
  sun:
    "M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10M12 1v2m0 18v2M4.2 4.2l1.4 1.4m12.8 12.8 1.4 1.4M1 12h2m18 0h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4",
  moon: "M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8",
  monitor: "M3 4h18v12H3zM8 20h8m-4-4v4",
  logout: "M15 3h4a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2h-4M10 17l5-5-5-5m5 5H3",
  key: "M15 7a3 3 0 1 0 0-.01M13 9.5 4 18.5V21h3v-2h2v-2h2l2.5-2.5",
  lock: "M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4",
  book: "M4 19V5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2 2 2 0 0 0 2 2h14",
  play: "M7 4v16l13-8z",
  menu: "M4 6h16M4 12h16M4 18h16",
  check: "M5 12.5l4.5 4.5L19 7.5",
  members:
    "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7M2.5 20a6.5 6.5 0 0 1 13 0M16 4.3a3.5 3.5 0 0 1 0 6.4M18 14.3a6.5 6.5 0 0 1 3.5 5.7",
  workspaces: "M3 7h7v7H3zM14 7h7v7h-7zM3 18h18M7 14v4m10-4v4",
  logo: "M6 7a2 2 0 1 0 0-.01M6 17a2 2 0 1 0 0-.01M18 12a2 2 0 1 0 0-.01M8 7.6l8 3.6M8 16.4l8-3.6",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon(props: { name: IconName; class?: string; title?: string }) {
  return (
    <svg
      class={props.class ?? "icon"}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden={props.title ? undefined : "true"}
      role={props.title ? "img" : undefined}
    >
      {props.title && <title>{props.title}</title>}
      <path d={PATHS[props.name]} />
    </svg>
  );
}
