/**
 * What /info and `main.ts version` report. `compile.sh` writes `build/build_info.json` and embeds
 * it; a source checkout has no build time and reads the commit from git when it can.
 */
import denoJson from "../../deno.json" with { type: "json" };
import { assets, SOURCE_ROOT } from "../lib/assets.ts";
import type { BuildInfo } from "./views.ts";

/** What `/info` answers: the view (views.ts). */
export type { BuildInfo };

async function gitCommit(): Promise<string | null> {
  try {
    const out = await new Deno.Command("git", {
      args: ["rev-parse", "HEAD"],
      cwd: SOURCE_ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return out.success && /^[0-9a-f]{40}$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

/** Reads the embedded build record, else describes the source checkout. */
export async function readBuildInfo(): Promise<BuildInfo> {
  try {
    const text = await assets.readText("build/build_info.json");
    const info = JSON.parse(text) as Partial<BuildInfo>;
    return {
      version: info.version ?? denoJson.version,
      build_time: info.build_time ?? null,
      commit: info.commit ?? null,
    };
  } catch {
    return { version: denoJson.version, build_time: null, commit: await gitCommit() };
  }
}
