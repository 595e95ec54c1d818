/**
 * Markdown to HTML for the public pages (product docs under `/docs/{id}`, the site's pages).
 * The sources are files shipped with the executable, yet raw HTML in them is still escaped: a page
 * is text, never markup that would need its own Content-Security-Policy exceptions.
 */
import { Marked, Renderer, type Token, type Tokens } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/**
 * GitHub's heading anchors (github-slugger), so `endpoints.md#paths` links work alike on GitHub
 * and on the site: lower case, every character but letters, marks, digits, `_`, `-` and spaces
 * dropped, each space a hyphen (`A & B` is `a--b`).
 */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

/** A heading's text as GitHub slugs it: what its inline tokens show, markup and HTML left out. */
function plainText(tokens: Token[]): string {
  return tokens.map((t) => {
    if (t.type === "html" || t.type === "image") return "";
    if ("tokens" in t && t.tokens?.length) return plainText(t.tokens);
    return "text" in t ? String(t.text) : "";
  }).join("");
}

/** Anchors taken in the page being rendered: a repeat gets `-1`, `-2`… as on GitHub. */
let taken = new Map<string, number>();

function anchor(tokens: Token[]): string {
  const base = slug(plainText(tokens));
  let id = base;
  while (taken.has(id)) {
    taken.set(base, taken.get(base)! + 1);
    id = `${base}-${taken.get(base)}`;
  }
  taken.set(id, 0);
  return id;
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
    // A wide table scrolls in its own box (focusable for the same reason), not the page.
    table(token: Tokens.Table) {
      return `<div class="table-scroll" tabindex="0">${
        Renderer.prototype.table.call(this, token)
      }</div>\n`;
    },
    heading({ tokens, depth }: Tokens.Heading) {
      return `<h${depth} id="${anchor(tokens)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
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
  taken = new Map(); // parsing is synchronous: no other page renders in between
  return marked.parse(body, { async: false });
}
