import { ConfirmDialog, ConfirmLink } from "../components/confirm.tsx";
import { entryTrail } from "../components/folder_list.tsx";
import { PageHead } from "../components/page_head.tsx";
import {
  BreakingBanner,
  opening,
  type OutcomeView,
  type PreviewView,
  PushEntries,
  PushSummary,
  what,
} from "../components/promote_panel.tsx";
import { Refusal, type RefusalView } from "../components/promote_refusal.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

export interface PromotePageProps {
  ctx: ShellContext;
  pipeline: { id: string; name: string; display_name?: string; current_version: number | null };
  /** Exactly one of the three: what a push would change, what it changed, or why not. */
  preview?: PreviewView;
  outcome?: OutcomeView;
  refusal?: RefusalView;
  /** `?confirm=push`: the Push dialog drawn open over the preview. */
  confirm?: boolean;
}

const short = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/**
 * `/pipelines/{id}/promote`: the preview of promoting the pipeline's current release (nothing
 * sent yet), Push behind a confirmation, and the answer of the push (`/partials/.../promote`).
 */
export function PromotePage(props: PromotePageProps) {
  const p = props.pipeline;
  const page = `/pipelines/${p.id}/promote`;
  const named = props.refusal?.details.target;
  const target = props.outcome?.target ?? props.preview?.target ??
    (typeof named === "string" ? named : "the target");
  const version = props.outcome?.pipeline.version ?? p.current_version;
  const label = p.display_name ?? short(p.name);
  const title = props.outcome ? `Promoted to ${target}` : `Promote to ${target}`;
  return (
    <AppShell title={`${title}: ${label}`} nav="pipelines" ctx={props.ctx}>
      <div class="promote-page">
        <PageHead
          trail={[...entryTrail("/pipelines", "Pipelines", p.name), [`/pipelines/${p.id}`, label]]}
          title={title}
          actions={
            <>
              <a class="btn" href={`/pipelines/${p.id}`}>Back to the pipeline</a>
              {props.preview && (
                <ConfirmLink
                  class={props.preview.breaking ? "btn danger" : "btn primary"}
                  href={`${page}?confirm=push`}
                >
                  Push to {target}
                </ConfirmLink>
              )}
            </>
          }
        >
          <p class="mono small">
            {p.name}
            {version !== null && ` · v${version}`}
            {props.preview && ` → workspace ${props.preview.workspace} on ${target}`}
          </p>
        </PageHead>
        {props.refusal && <Refusal refusal={props.refusal} />}
        {props.preview && <Preview preview={props.preview} version={version} />}
        {props.outcome && <Outcome outcome={props.outcome} />}
        {props.preview && props.confirm && (
          <PushDialog
            csrf={props.ctx.csrf}
            action={`/partials/pipelines/${p.id}/promote`}
            cancel={page}
            name={p.name}
            version={version}
            preview={props.preview}
          />
        )}
      </div>
    </AppShell>
  );
}

function Preview(props: { preview: PreviewView; version: number | null }) {
  const p = props.preview;
  return (
    <>
      <p class="lead">
        What pushing v{props.version} would change in workspace {p.workspace} on{" "}
        {p.target}. Nothing has been sent yet; the push is applied there all or nothing.
      </p>
      <BreakingBanner preview={p} />
      <PushSummary pipelines={p.pipelines} templates={p.templates} endpoints={p.endpoints} />
      <PushEntries
        target={p.target}
        pipelines={p.pipelines}
        templates={p.templates}
        endpoints={p.endpoints}
      />
    </>
  );
}

function Outcome(props: { outcome: OutcomeView }) {
  const o = props.outcome;
  const applied = o.pushed.applied;
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  return (
    <>
      <div class="banner ok" role="status">
        <strong>
          Pushed {o.pipeline.name} v{o.pipeline.version} to {o.target}
        </strong>
        {o.previous_version === null ? ", where it is new." : `, which had v${o.previous_version}.`}
        {" "}
        {opening(o.target)} applied {n(applied.pipelines, "pipeline version")},{" "}
        {n(applied.templates, "template version")} and {n(applied.endpoints, "endpoint change")}.
      </div>
      <PushSummary
        pipelines={o.changes.pipelines}
        templates={o.changes.templates}
        endpoints={o.changes.endpoints}
      />
      <PushEntries
        target={o.target}
        pipelines={o.changes.pipelines}
        templates={o.changes.templates}
        endpoints={o.changes.endpoints}
        done
      />
    </>
  );
}

/** The question Push asks: where it goes, how much it changes, and what it breaks. */
function PushDialog(
  props: {
    csrf: string;
    action: string;
    cancel: string;
    name: string;
    version: number | null;
    preview: PreviewView;
  },
) {
  const p = props.preview;
  const count = (rows: { change: string }[], noun: string) => {
    const moving = rows.filter((r) => r.change !== "unchanged").length;
    return `${moving} ${noun}${moving === 1 ? "" : "s"}`;
  };
  const broken = p.pipelines.filter((r) => r.breaking);
  return (
    <ConfirmDialog
      id="confirm-act"
      title={`Push ${props.name} v${props.version} to ${p.target}?`}
      action={props.action}
      csrf={props.csrf}
      confirm={`Push to ${p.target}`}
      cancel={props.cancel}
      danger={p.breaking}
    >
      <p>
        Workspace {p.workspace} on {p.target} receives {count(p.pipelines, "pipeline version")},
        {" "}
        {count(p.templates, "template version")} and{" "}
        {count(p.endpoints, "endpoint change")}, all or nothing: a refusal there leaves it as it
        was.
      </p>
      {p.breaking && (
        <div class="served" role="note">
          <strong>This breaks the callers of endpoints on {p.target} over:</strong>
          <ul>
            {broken.map((r) => (
              <li key={r.name}>
                <code>{r.name}</code>: {[...r.parameters, ...(r.result_columns ?? [])]
                  .filter((c) => c.breaking).map((c) => `${c.name} ${what(c)}`).join("; ")}
              </li>
            ))}
          </ul>
        </div>
      )}
    </ConfirmDialog>
  );
}
