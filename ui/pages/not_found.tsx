import { BaseLayout } from "../layouts/base.tsx";

/** The HTML answer for an unknown page (API paths answer the JSON envelope instead). */
export function NotFoundPage(props: { path: string }) {
  return (
    <BaseLayout title="Not found">
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{props.path}</code>. <a href="/">Back to the start</a>.
      </p>
    </BaseLayout>
  );
}
