import { BaseLayout } from "../layouts/base.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** The HTML answer for an unknown page (API paths answer the JSON envelope instead). */
export function NotFoundPage(props: { path: string; ctx?: ShellContext }) {
  const body = (
    <>
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{props.path}</code>.
      </p>
      <p>
        <a class="btn" href={props.ctx ? "/dashboard" : "/"}>
          {props.ctx ? "Back to the dashboard" : "Back to the start"}
        </a>
      </p>
    </>
  );
  return props.ctx
    ? <AppShell title="Not found" nav={null} ctx={props.ctx}>{body}</AppShell>
    : <BaseLayout title="Not found">{body}</BaseLayout>;
}
