/**
 * A refused preview or push (docs/promotion.md, "Promoting"): the user message, the code as REST
 * answers it, and the entry the refusal concerns with what to do next, read from its details.
 */
import { type ComponentChildren, Fragment } from "preact";

/** A refusal as the error envelope carries it: code, status, messages and details. */
export interface RefusalView {
  code: string;
  status: number;
  message: string;
  userMessage: string;
  details: Record<string, unknown>;
}

/** What a refusal concerns, read from its details: the entry to point at, and what to do. */
function concerned(r: RefusalView): { item: ComponentChildren; fix: string } | undefined {
  const d = r.details;
  const s = (k: string) => String(d[k] ?? "");
  switch (r.code) {
    case "pipeline.promotion.not_newer":
      return {
        item: (
          <>
            pipeline <code>{s("name")}</code>: v{s("version")} here, v{s("target_version")} on{" "}
            {s("target")}
          </>
        ),
        fix: "Release a newer version here, then promote it.",
      };
    case "pipeline.promotion.missing_datasources":
      return {
        item: (
          <>
            datasource{Array.isArray(d.missing) && d.missing.length > 1 ? "s" : ""}{" "}
            {(Array.isArray(d.missing) ? d.missing : []).map((m, i) => (
              <Fragment key={String(m)}>
                {i > 0 && ", "}
                <code>{String(m)}</code>
              </Fragment>
            ))} missing in workspace {s("workspace")} on the target
          </>
        ),
        fix: "Register them on the target under the same names, then try again.",
      };
    case "endpoint.promotion.key_missing":
      return {
        item: (
          <>
            endpoint <code>{s("path")}</code> is bound to key <code>{s("key_name")}</code>
          </>
        ),
        fix: "Create a live endpoint key of that name on the target, then try again.",
      };
    case "pipeline.promotion.not_released":
      return {
        item: (
          <>
            <code>{s("pipeline_id")}</code>: {s("reason")}
          </>
        ),
        fix: "Release it first: promotion carries released versions only.",
      };
    case "pipeline.promotion.target_is_authoring":
      return {
        item: <>target {s("target")}</>,
        fix: "Promote only into a hardened deployment (authoring disabled).",
      };
    case "pipeline.promotion.target_not_configured":
      return {
        item: <>this deployment's promotion settings</>,
        fix: "Set service.deployment.promotion.target-url and target-key-file (or target-key).",
      };
    case "pipeline.promotion.target_unreachable":
      return {
        item: <>the target answered {s("status") === "0" ? "nothing" : s("status")}</>,
        fix: "Check the target's address and the server key, then try again.",
      };
    default:
      return d.entry
        ? { item: <code>{s("entry")}</code>, fix: "Nothing was changed there." }
        : undefined;
  }
}

/** Where the target stands after the refusal. */
function afterwards(r: RefusalView): string {
  if (r.code === "pipeline.promotion.target_unreachable") {
    return "A push is applied all or nothing: preview again to see whether it arrived.";
  }
  return r.details.target_details
    ? "The target refused the whole push and is left as it was."
    : "Nothing was sent to the target.";
}

/** A refusal: its user message, its code, and the entry it concerns. */
export function Refusal(props: { refusal: RefusalView }) {
  const r = props.refusal;
  const at = concerned(r);
  return (
    <section class="card promote-refusal" role="alert" aria-labelledby="refusal-title">
      <header>
        <h2 id="refusal-title">{r.userMessage}</h2>
        <code class="refusal-code">{r.code}</code>
      </header>
      <div class="body">
        <p>{r.message}</p>
        {at && (
          <dl class="facts">
            <dt>Concerns</dt>
            <dd>{at.item}</dd>
            <dt>Next</dt>
            <dd>{at.fix}</dd>
          </dl>
        )}
        <p class="muted small">{afterwards(r)}</p>
      </div>
    </section>
  );
}
