import { BaseLayout, type Visitor } from "../layouts/base.tsx";

export interface ArticleLink {
  href: string;
  label: string;
}

/** A title as the Markdown it is written in: `backticked` parts as code, the rest as text. */
function InlineCode(props: { text: string }) {
  return (
    <>
      {props.text.split("`").map((part, i) => i % 2 === 1 ? <code key={i}>{part}</code> : part)}
    </>
  );
}

/**
 * A page of prose rendered from Markdown: the site's pages and the product documentation. `html`
 * comes from `ui/markdown.ts`, which escapes any raw HTML in the source.
 */
export function ArticlePage(
  props: {
    title: string;
    html: string;
    nav?: { heading: string; links: ArticleLink[] };
    current?: string;
    visitor?: Visitor;
  },
) {
  return (
    <BaseLayout title={props.title.replaceAll("`", "")} visitor={props.visitor}>
      <div class={props.nav ? "article-grid" : undefined}>
        {props.nav && (
          <nav class="article-nav" aria-label={props.nav.heading}>
            <div class="section">{props.nav.heading}</div>
            {props.nav.links.map((link) => (
              <a
                href={link.href}
                key={link.href}
                aria-current={link.href === props.current ? "page" : undefined}
              >
                <InlineCode text={link.label} />
              </a>
            ))}
          </nav>
        )}
        <article class="prose">
          <h1>
            <InlineCode text={props.title} />
          </h1>
          <div dangerouslySetInnerHTML={{ __html: props.html }} />
        </article>
      </div>
    </BaseLayout>
  );
}
