/**
 * Writes the configuration reference into docs/configuration.md between the markers, from the config schema
 * itself. `--check` exits non-zero when the page is stale (a test runs it that way).
 */
import { leaves } from "../src/config/mod.ts";

const BEGIN = "<!-- config-reference:begin -->";
const END = "<!-- config-reference:end -->";

function cell(value: unknown): string {
  if (value === undefined) return "";
  const text = Array.isArray(value) ? (value.length ? value.join(", ") : "(empty)") : String(value);
  return `\`${text.replaceAll("|", "\\|")}\``;
}

/** The markdown table of every `service.*` property. */
export function configReference(): string {
  const rows = leaves().map((leaf) => {
    const bounds = [
      leaf.enum ? `one of ${leaf.enum.join(", ")}` : "",
      leaf.minimum !== undefined ? `min ${leaf.minimum}` : "",
      leaf.maximum !== undefined ? `max ${leaf.maximum}` : "",
    ].filter(Boolean).join("; ");
    const type = leaf.type === "string_list" ? "list" : leaf.type;
    return `| \`${leaf.path}\` | \`${leaf.env}\` | ${type} | ${cell(leaf.default)} | ${
      leaf.description.replaceAll("|", "\\|")
    }${bounds ? ` (${bounds})` : ""} |`;
  });
  return [
    "| property | environment | type | default | meaning |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

export function renderReadme(readme: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the page lacks the ${BEGIN} … ${END} markers`);
  return readme.slice(0, start + BEGIN.length) + "\n" + configReference() + "\n" +
    readme.slice(end);
}

if (import.meta.main) {
  const path = new URL("../docs/configuration.md", import.meta.url);
  const current = await Deno.readTextFile(path);
  const next = renderReadme(current);
  if (Deno.args.includes("--check")) {
    if (next !== current) {
      console.error("docs/configuration.md is stale: run `deno task docs:config`");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(path, next);
    console.log("docs/configuration.md updated");
  }
}
