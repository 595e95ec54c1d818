/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in deno.json;
 * 0.2.0-alpha.12, the first release with 2026-07-28 server scenarios) against `/mcp`, for each
 * revision: exactly the scenarios the revision requires (`--requirements`). The suite connects
 * without credentials, so it reaches the server through a proxy that adds an API key and passes
 * everything else (Host and Origin included) through.
 *
 * Most scenarios exercise the suite's reference server: its diagnostic tools (`test_simple_text`,
 * `test_tool_with_progress`, …), its `test://` resources and `test_*` prompts, logging,
 * completions, elicitation and tasks. This server offers its own tools, its docs as resources and
 * two prompts of its own, so the generic listing scenarios apply and those naming the reference
 * server's fixtures cannot; they are listed below with the reason (and in docs/mcp.md). Every other check must pass: a FAILURE outside the lists
 * fails the test, and so does a scenario of the revision that is in no list.
 */
import { deepEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer } from "./support/harness.ts";
import { keyProxy } from "./support/key_proxy.ts";
import { ERAS } from "./support/mcp_client.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const REFERENCE_TOOLS = "calls a diagnostic tool of the suite's reference server";
const REFERENCE_RESOURCE = "reads a test:// resource of the suite's reference server";
const REFERENCE_PROMPT = "gets a test_* prompt of the suite's reference server";

/** Scenarios that apply: every check must pass (warnings and skips aside). */
const APPLIES = new Set([
  "server-initialize",
  "ping",
  "tools-list",
  "dns-rebinding-protection",
  "server-stateless",
  "http-header-validation",
  "server-sse-multiple-streams",
  "server-sse-polling",
  "sep-2164-resource-not-found",
  "caching",
  "resources-list",
  "prompts-list",
  "input-required-result-missing-input-response",
  "input-required-result-unsupported-methods",
  "input-required-result-ignore-extra-params",
  "input-required-result-validate-input",
]);

/** Checks of applying scenarios that cannot be exercised here, with why. */
export const NOT_TESTABLE: Record<string, string> = {
  "sep-2575-server-rejects-undeclared-capability": `${REFERENCE_TOOLS} (test_missing_capability)`,
  "sep-2575-missing-capability-http-400": `${REFERENCE_TOOLS} (test_missing_capability)`,
  "sep-2575-http-server-no-independent-requests-on-stream":
    `${REFERENCE_TOOLS} (test_streaming_elicitation)`,
  "sep-2575-server-no-log-without-loglevel": `${REFERENCE_TOOLS} (test_logging_tool)`,
};

/** Whole scenarios that cannot apply, with why. */
export const NOT_APPLICABLE: Record<string, string> = {
  "server-session-lifecycle": "sessions are optional in 2025-11-25 and this server issues none",
  "logging-set-level": "the server offers no logging capability (its log is its own)",
  "completion-complete": `${REFERENCE_PROMPT} (test_prompt_with_arguments) to complete`,
  "tools-call-simple-text": REFERENCE_TOOLS,
  "tools-call-image": REFERENCE_TOOLS,
  "tools-call-audio": REFERENCE_TOOLS,
  "tools-call-embedded-resource": REFERENCE_TOOLS,
  "tools-call-mixed-content": REFERENCE_TOOLS,
  "tools-call-with-logging": REFERENCE_TOOLS,
  "tools-call-error": `${REFERENCE_TOOLS}; tool errors are tested in tests/mcp_refusals_test.ts`,
  "tools-call-with-progress":
    `${REFERENCE_TOOLS}; progress is tested with pipelines_execute in tests/mcp_tools_test.ts`,
  "tools-call-sampling": `${REFERENCE_TOOLS}; the server never asks the client to sample`,
  "tools-call-elicitation": `${REFERENCE_TOOLS}; the server never elicits`,
  "elicitation-sep1034-defaults": "the server never elicits",
  "elicitation-sep1330-enums": "the server never elicits",
  "json-schema-2020-12": `${REFERENCE_TOOLS} (json_schema_2020_12_tool)`,
  "resources-read-text": `${REFERENCE_RESOURCE} (test://static-text)`,
  "resources-read-binary": `${REFERENCE_RESOURCE} (test://static-binary)`,
  "resources-templates-read": `${REFERENCE_RESOURCE} (test://template/{id}/data)`,
  "resources-subscribe": "docs pages never change while a server runs: no subscriptions",
  "resources-unsubscribe": "docs pages never change while a server runs: no subscriptions",
  "prompts-get-simple": `${REFERENCE_PROMPT} (test_simple_prompt)`,
  "prompts-get-with-args": `${REFERENCE_PROMPT} (test_prompt_with_arguments)`,
  "prompts-get-embedded-resource": `${REFERENCE_PROMPT} (test_prompt_with_embedded_resource)`,
  "prompts-get-with-image": `${REFERENCE_PROMPT} (test_prompt_with_image)`,
  "http-custom-header-server-validation": "no tool declares x-mcp-header parameters",
  "input-required-result-basic-elicitation": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-basic-sampling": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-basic-list-roots": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-request-state": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-multiple-input-requests": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-multi-round": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-non-tool-request": "no request but tools/call asks for input here",
  "input-required-result-result-type": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-tampered-state": `${REFERENCE_TOOLS}; no tool asks for input`,
  "input-required-result-capability-check": `${REFERENCE_TOOLS}; no tool asks for input`,
};

/**
 * Checks that must not even warn: the resource-not-found answer (-32602 with `data.uri`) and the
 * caching hints of the resources and prompts this server offers.
 */
const NO_WARNING = /^sep-2164-|^sep-2549-(resources|prompts)-/;

/** Extension scenarios the suite runs but does not score: the tasks extension is not offered. */
const EXTENSION = /^tasks-/;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

for (const era of ERAS) {
  Deno.test(`[${era}] the official MCP conformance suite's server scenarios pass where they apply`, async () => {
    // The suite fires requests faster than any user would; the budget is not under test here.
    const s = await startTestServer({
      env: {
        SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
        SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
      },
    });
    const out = await Deno.makeTempDir({ prefix: "mcp_conformance_" });
    const f = await seedRoles(s.runtime);
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    const proxy = keyProxy(s.url, key);
    try {
      const run = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          SUITE,
          "server",
          "--url",
          `${proxy.url}/mcp`,
          "--requirements",
          era,
          "-o",
          out,
        ],
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const log = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
      const problems: string[] = [];
      const seen: string[] = [];
      for await (const entry of Deno.readDir(out)) {
        const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry.name)?.[1];
        if (!scenario) continue;
        seen.push(scenario);
        const checks: Check[] = JSON.parse(
          await Deno.readTextFile(join(out, entry.name, "checks.json")),
        );
        if (scenario in NOT_APPLICABLE || EXTENSION.test(scenario)) continue;
        if (!APPLIES.has(scenario)) {
          problems.push(`${scenario}: a scenario in no list`);
          continue;
        }
        for (const c of checks) {
          if (c.status === "FAILURE" && !(c.id in NOT_TESTABLE)) {
            problems.push(`${scenario} / ${c.id}: ${c.errorMessage ?? "failed"}`);
          }
          if (NO_WARNING.test(c.id) && c.status !== "SUCCESS") {
            problems.push(`${scenario} / ${c.id}: ${c.status} ${c.errorMessage ?? ""}`);
          }
        }
      }
      ok(seen.length > 10, `the suite ran ${seen.length} scenarios:\n${log.slice(-3000)}`);
      for (
        const must of [
          "server-initialize",
          "tools-list",
          "dns-rebinding-protection",
          "resources-list",
          "prompts-list",
        ]
      ) {
        if (must === "server-initialize" && era === "2026-07-28") continue;
        ok(seen.includes(must), `${must} did not run`);
      }
      if (era === "2026-07-28") {
        for (
          const must of [
            "server-stateless",
            "http-header-validation",
            "caching",
            "sep-2164-resource-not-found",
          ]
        ) {
          ok(seen.includes(must), `${must} did not run`);
        }
      }
      deepEqual(problems, []);
    } finally {
      await proxy.close();
      await s.close();
      await Deno.remove(out, { recursive: true });
    }
  });
}
