import type { ComponentChildren } from "preact";
import { ConfirmDialog } from "./confirm.tsx";

/** A pipeline version act about to happen, and what the endpoints over it serve before and after. */
export interface PipelineGuard {
  act: "release" | "discard-draft" | "discard" | "restore" | "current";
  version: number;
  current: number | null;
  body_hash: string;
  /**
   * The release endpoints serve now and after the act
   * (docs/decisions.md#an-endpoint-serves-the-latest-release).
   */
  served: { before: number | null; after: number | null };
  endpoints: { path_pattern: string; enabled: boolean }[];
}

const v = (n: number | null) => n === null ? "no release" : `v${n}`;

/** Names each endpoint the act moves, with the version it serves after it. */
function ServedChange(props: { guard: PipelineGuard }) {
  const { endpoints, served } = props.guard;
  if (endpoints.length === 0) return null;
  const list = (
    <ul>
      {endpoints.map((e) => (
        <li key={e.path_pattern}>
          <code>{e.path_pattern}</code>
          {!e.enabled && " (disabled)"}
          {served.before !== served.after &&
            (served.after === null
              ? ": will serve nothing (calls are refused until a version is released)"
              : `: will serve v${served.after} instead of ${v(served.before)}`)}
        </li>
      ))}
    </ul>
  );
  if (served.before === served.after) {
    return (
      <div class="served">
        The published endpoints over this pipeline keep serving {v(served.before)}:
        {list}
      </div>
    );
  }
  return (
    <div class="served" role="note">
      <strong>
        This changes what {endpoints.length} published endpoint{endpoints.length === 1 ? "" : "s"}
        {" "}
        serve{endpoints.length === 1 ? "s" : ""}:
      </strong>
      {list}
    </div>
  );
}

/** The confirmation a pipeline's Release, Discard, Restore or Make current asks first. */
export function PipelineGuardDialog(props: { id: string; csrf: string; guard: PipelineGuard }) {
  const g = props.guard;
  const back = `/pipelines/${props.id}`;
  const move = (verb: string) => `/partials/pipelines/${props.id}/versions/${g.version}/${verb}`;
  const ask = (
    title: string,
    action: string,
    confirm: string,
    what: ComponentChildren,
    opts: { danger?: boolean; fields?: Record<string, string> } = {},
  ) => (
    <ConfirmDialog
      id="confirm-act"
      title={title}
      action={action}
      csrf={props.csrf}
      confirm={confirm}
      cancel={back}
      danger={opts.danger}
      fields={opts.fields}
    >
      <p>{what}</p>
      <ServedChange guard={g} />
    </ConfirmDialog>
  );
  switch (g.act) {
    case "release":
      return ask(
        `Release v${g.version}?`,
        `/partials/pipelines/${props.id}/release`,
        `Release v${g.version}`,
        `Its release checks run first, and the draft templates it pins are released with it.`,
        { fields: { body_hash: g.body_hash, release_pinned_templates: "true" } },
      );
    case "discard-draft":
      return ask(
        `Discard the draft v${g.version}?`,
        `/partials/pipelines/${props.id}/discard`,
        "Discard draft",
        "Its changes are deleted and cannot be brought back. Released versions stay as they are.",
        { danger: true, fields: { body_hash: g.body_hash } },
      );
    case "discard":
      return ask(
        `Discard v${g.version}?`,
        move("discard"),
        `Discard v${g.version}`,
        `v${g.version} stops being a release; Restore brings it back.`,
        { danger: true },
      );
    case "restore":
      return ask(
        `Restore v${g.version}?`,
        move("restore"),
        `Restore v${g.version}`,
        `v${g.version} becomes a release again.`,
      );
    case "current":
      return ask(
        `Make v${g.version} current?`,
        move("current"),
        "Make current",
        `Runs that name no version run v${g.version} instead of ${v(g.current)}.`,
      );
  }
}
