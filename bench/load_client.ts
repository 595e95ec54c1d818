/**
 * Runs `bench/load.ts` as its own process, so the load never shares the server's event loop,
 * and answers what it measured.
 */
export interface Load {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

export async function load(
  url: string,
  seconds: number,
  concurrency: number,
  headers: Record<string, string> = {},
): Promise<Load> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL("./load.ts", import.meta.url).pathname,
      url,
      String(seconds),
      String(concurrency),
      JSON.stringify(headers),
    ],
    stdout: "piped",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
