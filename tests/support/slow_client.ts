/**
 * Raw-socket clients for the listener's timeout tests: a request head or body trickled a byte at
 * a time, a kept-alive connection left idle, and the server's close observed with a deadline.
 */

const encoder = new TextEncoder();

/** Sends `text` one byte every `everyMs` until it is sent, the peer goes, or `stop()`. */
export function trickle(conn: Deno.Conn, text: string, everyMs: number): { stop(): void } {
  let stopped = false;
  (async () => {
    for (const ch of text) {
      if (stopped) return;
      try {
        await conn.write(encoder.encode(ch));
      } catch {
        return; // the server closed it: what the tests wait for
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop() {
      stopped = true;
    },
  };
}

export interface Closed {
  /** Since `since` (performance.now()), when the server's close arrived. */
  afterMs: number;
  /** Whatever the server sent before closing. */
  text: string;
}

/**
 * Reads until the server closes the connection (end of stream or reset) and closes our side too;
 * fails after `deadlineMs`, leaving the connection closed.
 */
export async function untilClosed(
  conn: Deno.Conn,
  since: number,
  deadlineMs: number,
): Promise<Closed> {
  const buffer = new Uint8Array(16 * 1024);
  const decoder = new TextDecoder();
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  try {
    for (;;) {
      const n = await Promise.race([conn.read(buffer).catch(() => null), late]);
      if (n === "late") {
        throw new Error(`the server left the connection open for ${deadlineMs} ms`);
      }
      if (n === null) return { afterMs: performance.now() - since, text };
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
}

/** A request head, complete, with `Connection: keep-alive`. */
export function head(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: "test", connection: "keep-alive", ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return `${method} ${path} HTTP/1.1\r\n${lines}\r\n`;
}

/**
 * How long a test waits for descriptors to open or close: generous, since a loaded machine can
 * take seconds to settle hundreds of sockets, and only a leak never settles.
 */
export const FD_WAIT_MS = 30_000;

/** This process's open file descriptors. */
export function openFds(): number {
  let n = 0;
  for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
  return n;
}

export async function send(conn: Deno.Conn, text: string): Promise<void> {
  await conn.write(encoder.encode(text));
}
