import type { ComponentChildren } from "preact";

/** The document frame every page shares. */
export function BaseLayout(props: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Pipeline Service</title>
        <link rel="stylesheet" href="/css/app.css" />
      </head>
      <body>
        <header class="topbar">
          <a href="/" class="brand">Pipeline Service</a>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}
