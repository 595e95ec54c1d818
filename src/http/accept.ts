/**
 * Whether an `Accept` header admits a media type (RFC 9110 §12.5.1): media ranges with their
 * q-values, `type/*` and the full wildcard, the most specific range that matches deciding, and q=0 meaning
 * "not acceptable". An absent or empty header admits anything.
 *
 * Decisions where the RFC leaves room:
 * - Parameters other than q are ignored for matching (`application/json;charset=utf-8` asks for
 *   JSON); among equally specific matching ranges the highest q counts.
 * - A range that does not parse (no `/`, a q outside 0–1 or with more than three decimals)
 *   admits nothing; the other ranges of the header still count.
 */

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

interface Range {
  type: string;
  subtype: string;
  q: number;
}

/** Splits on `sep` outside double-quoted strings (a parameter value may quote `,` or `;`). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === "\\") i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseRange(element: string): Range | null {
  const [media, ...params] = splitOutsideQuotes(element, ";").map((p) => p.trim());
  const slash = media.indexOf("/");
  const type = media.slice(0, slash).toLowerCase();
  const subtype = media.slice(slash + 1).toLowerCase();
  if (slash < 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  if (type === "*" && subtype !== "*") return null;
  let q = 1;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0) return null;
    if (param.slice(0, eq).trim().toLowerCase() !== "q") continue;
    const value = param.slice(eq + 1).trim();
    if (!QVALUE.test(value)) return null;
    q = Number(value);
    // What follows q are accept-extensions, which say nothing about the media type.
    break;
  }
  return { type, subtype, q };
}

/** Whether `accept` (the header's value, or null when absent) admits `mediaType` (`a/b`). */
export function admits(accept: string | null | undefined, mediaType: string): boolean {
  if (accept === null || accept === undefined || accept.trim() === "") return true;
  const [type, subtype] = mediaType.toLowerCase().split("/");
  let best = -1;
  let q = 0;
  for (const element of splitOutsideQuotes(accept, ",")) {
    if (element.trim() === "") continue;
    const range = parseRange(element);
    if (!range) continue;
    const specificity = range.type === "*"
      ? 0
      : range.type !== type
      ? -1
      : range.subtype === "*"
      ? 1
      : range.subtype === subtype
      ? 2
      : -1;
    if (specificity < 0 || specificity < best) continue;
    q = specificity > best ? range.q : Math.max(q, range.q);
    best = specificity;
  }
  return best >= 0 && q > 0;
}
