/**
 * Markdown to HTML for the public pages (product docs under `/docs/{id}`, the site's pages).
 * The sources are files shipped with the executable, yet raw HTML in them is still escaped: a page
 * is text, never markup that would need its own Content-Security-Policy exceptions.
 */
import { Marked, type Tokens } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** GitHub-style heading anchors, so `endpoints.md#paths` links keep working on the site. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").trim()
    .replace(/\s+/g, "-");
}

const marked = new Marked({ gfm: true });
marked.use({
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escape(text),
    // A code block may scroll sideways; keyboard users reach a scrollable region only if it
    // takes focus.
    code({ text, lang }: Tokens.Code) {
      const cls = lang ? ` class="language-${escape(lang.split(/\s/)[0])}"` : "";
      return `<pre tabindex="0"><code${cls}>${escape(text)}</code></pre>\n`;
    },
    heading({ tokens, depth, text }: Tokens.Heading) {
      return `<h${depth} id="${slug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
    },
  },
  // Docs link each other by file name (`endpoints.md`); on the site a page lives at `/docs/{id}`.
  walkTokens(token) {
    if (token.type !== "link") return;
    const local = /^([a-z][a-z0-9_-]*)\.md(#[^\s]*)?$/.exec(token.href);
    if (local) token.href = `/docs/${local[1]}${local[2] ?? ""}`;
  },
});

/** The page's HTML; the first `# ` heading is left to the caller, who shows it as the title. */
export function markdownToHtml(markdown: string): string {
  const body = markdown.replace(/^# .*\n+/, "");
  return marked.parse(body, { async: false });
}
