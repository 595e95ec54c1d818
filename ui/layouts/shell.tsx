import type { ComponentChildren } from "preact";
import { Icon, type IconName } from "../components/icons.tsx";
import { Brand, Document, initials, NavToggle, type Theme } from "./base.tsx";

/** What every signed-in page knows about its viewer. */
export interface ShellContext {
  csrf: string;
  theme: Theme;
  user: { displayName: string; email: string; isSuperAdmin: boolean };
  /** The active workspace's name, or null when the session has none. */
  workspace: string | null;
  /** Where the switcher may go: a super admin's every active workspace, else the memberships. */
  workspaces: { name: string; display_name: string; role: string }[];
  /** Nav items whose page would refuse this person here (by the same rule as its route). */
  refused?: NavItem[];
}

export type NavItem =
  | "dashboard"
  | "pipelines"
  | "templates"
  | "runs"
  | "datasources"
  | "endpoints"
  | "audit"
  | "users"
  | "workspace"
  | "workspaces";

const NAV: { id: NavItem; label: string; href: string; icon: IconName }[] = [
  { id: "dashboard", label: "Dashboard", href: "/dashboard", icon: "dashboard" },
  { id: "pipelines", label: "Pipelines", href: "/pipelines", icon: "pipelines" },
  { id: "templates", label: "Templates", href: "/templates", icon: "templates" },
  { id: "runs", label: "Runs", href: "/runs", icon: "runs" },
  { id: "datasources", label: "Datasources", href: "/datasources", icon: "datasources" },
  { id: "endpoints", label: "Endpoints", href: "/endpoints", icon: "endpoints" },
  { id: "audit", label: "Audit log", href: "/audit", icon: "audit" },
  { id: "workspace", label: "Workspace", href: "/workspace", icon: "members" },
  { id: "workspaces", label: "All workspaces", href: "/admin/workspaces", icon: "workspaces" },
  { id: "users", label: "Users", href: "/admin/users", icon: "users" },
];

const THEMES: { id: Theme; label: string; icon: IconName }[] = [
  { id: "light", label: "Light theme", icon: "sun" },
  { id: "dark", label: "Dark theme", icon: "moon" },
  { id: "system", label: "Follow the system theme", icon: "monitor" },
];

/**
 * The application frame: top bar (brand, workspace switcher, docs, the account menu with theme and
 * sign out) over the left navigation and the page. Below 768 px the navigation folds behind the
 * top bar's menu button (app.js opens it; without the script noscript.css keeps it drawn). Forms
 * work without JavaScript; htmx sends the CSRF header for partials.
 */
export function AppShell(
  props: {
    title: string;
    /** The navigation item to mark current; null for pages outside it (settings, errors). */
    nav: NavItem | null;
    ctx: ShellContext;
    /** Pages with a code editor: the module that starts it (see `Document`). */
    editor?: string;
    children: ComponentChildren;
  },
) {
  const { ctx } = props;
  return (
    <Document title={props.title} theme={ctx.theme} editor={props.editor}>
      <body hx-headers={JSON.stringify({ "SVC-CSRF-Token": ctx.csrf })}>
        <a class="skip-link" href="#main">Skip to content</a>
        <div class="app">
          <header class="topbar">
            <NavToggle controls="sidenav" />
            <Brand />
            <WorkspaceSwitcher ctx={ctx} />
            <span class="spacer" />
            <a class="topbar-link" href="/docs">
              <Icon name="book" />
              <span class="label">Docs</span>
            </a>
            <AccountMenu ctx={ctx} />
          </header>
          <nav id="sidenav" class="sidenav" aria-label="Main">
            {NAV.filter((n) => !ctx.refused?.includes(n.id)).map((n) => (
              <a
                key={n.id}
                href={n.href}
                aria-current={n.id === props.nav ? "page" : undefined}
              >
                <Icon name={n.icon} />
                {n.label}
              </a>
            ))}
          </nav>
          <main id="main" class="content">{props.children}</main>
        </div>
      </body>
    </Document>
  );
}

/**
 * The user chip opens the account menu: who is signed in, their settings, the theme and sign out
 * (the docs are the top bar's own link). A `<details>` disclosure, so it opens by keyboard and without the script.
 */
function AccountMenu(props: { ctx: ShellContext }) {
  const { ctx } = props;
  return (
    <details class="account-menu">
      <summary class="user-chip">
        <span class="avatar" aria-hidden="true">{initials(ctx.user.displayName)}</span>
        <span class="who">
          <span>{ctx.user.displayName}</span>
          <span class="muted small">
            {ctx.user.isSuperAdmin ? "Super admin" : ctx.user.email}
          </span>
        </span>
      </summary>
      <div class="menu-panel">
        <div class="profile">
          <strong>{ctx.user.displayName}</strong>
          <span class="muted small">{ctx.user.email}</span>
          <span class="muted small">
            {ctx.user.isSuperAdmin
              ? "Super admin"
              : ctx.workspace
              ? `${
                ctx.workspaces.find((w) => w.name === ctx.workspace)?.role ?? "member"
              } in ${ctx.workspace}`
              : "No workspace"}
          </span>
        </div>
        <nav aria-label="Account">
          <a href="/settings/api-keys">
            <Icon name="key" />API keys
          </a>
          <a href="/settings/password">
            <Icon name="lock" />Change password
          </a>
        </nav>
        <div class="menu-theme">
          <span class="muted small" id="menu-theme-label">Theme</span>
          <div class="theme-toggle" role="group" aria-labelledby="menu-theme-label">
            {THEMES.map((t) => (
              <button
                key={t.id}
                type="button"
                class="theme-choice"
                title={t.label}
                aria-label={t.label}
                aria-pressed={ctx.theme === t.id ? "true" : "false"}
                data-theme-choice={t.id}
                hx-patch="/partials/profile/theme"
                hx-vals={JSON.stringify({ theme: t.id })}
                hx-swap="none"
              >
                <Icon name={t.icon} />
              </button>
            ))}
          </div>
        </div>
        <form method="post" action="/logout">
          <input type="hidden" name="_csrf" value={ctx.csrf} />
          <button type="submit" class="ghost">
            <Icon name="logout" />Sign out
          </button>
        </form>
      </div>
    </details>
  );
}

function WorkspaceSwitcher(props: { ctx: ShellContext }) {
  const { ctx } = props;
  if (ctx.workspaces.length === 0) {
    return <span class="muted small">No workspace</span>;
  }
  return (
    <form method="post" action="/workspace/switch" class="switcher">
      <input type="hidden" name="_csrf" value={ctx.csrf} />
      <label class="muted small" for="workspace-switch">Workspace</label>
      <select
        id="workspace-switch"
        name="workspace"
        hx-post="/workspace/switch"
        hx-trigger="change"
      >
        {ctx.workspace === null && <option value="">Choose…</option>}
        {ctx.workspaces.map((w) => (
          <option key={w.name} value={w.name} selected={w.name === ctx.workspace}>
            {w.display_name}
          </option>
        ))}
      </select>
      <noscript>
        <button type="submit">Switch</button>
      </noscript>
    </form>
  );
}
