/**
 * One catalogue entry and its message template. `message` is technical English and names details
 * as `{field}` (lower-case letters and `_`); any other braces, such as a grammar's `{0,63}`, are
 * text. The types below read the placeholders out of a message literal, so `new AppError(code,
 * details)` compiles only when `details` carries every one of them.
 */
export interface CatalogueEntry {
  status: number;
  message: string;
  user_message: string;
}

type NameChar =
  | "a"
  | "b"
  | "c"
  | "d"
  | "e"
  | "f"
  | "g"
  | "h"
  | "i"
  | "j"
  | "k"
  | "l"
  | "m"
  | "n"
  | "o"
  | "p"
  | "q"
  | "r"
  | "s"
  | "t"
  | "u"
  | "v"
  | "w"
  | "x"
  | "y"
  | "z"
  | "_";

type IsName<S extends string> = S extends `${NameChar}${infer Rest}`
  ? Rest extends "" ? true : IsName<Rest>
  : false;

/** The `{name}` placeholders of a message literal, as a union of names. */
export type Placeholders<M extends string> = M extends `${string}{${infer Name}}${infer Rest}`
  ? (IsName<Name> extends true ? Name : never) | Placeholders<Rest>
  : never;

/** The same reading as {@link Placeholders}, at run time; the two must agree. */
const PLACEHOLDER = /\{([a-z_]+)\}/g;

/** The placeholder names of `message`, in order of first appearance. */
export function placeholdersOf(message: string): string[] {
  return [...new Set(Array.from(message.matchAll(PLACEHOLDER), (m) => m[1]))];
}

/** Fills `{name}` placeholders from details; an absent detail renders as `?`. */
export function renderMessage(template: string, details: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, key: string) => {
    const value = details[key];
    if (value === undefined || value === null) return "?";
    return Array.isArray(value) ? value.join(", ") : String(value);
  });
}
