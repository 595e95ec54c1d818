/**
 * Runs `bench/load.ts` (or another client script) as its own process, so the load never shares
 * the server's event loop, and answers what it measured.
 */
export interface Load {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

export function load(
  url: string,
  seconds: number,
  concurrency: number,
  headers: Record<string, string> = {},
): Promise<Load> {
  return runClient("./load.ts", [
    url,
    String(seconds),
    String(concurrency),
    JSON.stringify(headers),
  ]);
}

/** Runs a client script of this folder with network access only; answers the JSON it prints. */
export async function runClient<T>(script: string, args: string[]): Promise<T> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL(script, import.meta.url).pathname, ...args],
    stdout: "piped",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
