/**
 * The soak's load balancer: round robin over the replicas, on Deno's own server, loopback only.
 * An upstream leaves the rotation when its `/ready` fails or a connection to it is refused, and
 * comes back when `/ready` answers 200 again. A request no upstream could take is answered 502 in
 * the service's error envelope, as a real balancer in front of it should be configured to.
 * Each answer names the replica that served it (`x-soak-upstream`), so a phase can aim a fault.
 */

/**
 * How long a `/ready` check waits: longer than the replicas' health probe timeout (2 s by
 * default), as a balancer's check must be, or a probe slow under load but answering counts as down.
 */
export const READY_CHECK_MS = 3_000;

export interface Upstream {
  url: string;
  ready: boolean;
}

const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "host"];

export class RoundRobinProxy {
  readonly upstreams: Upstream[];
  #next = 0;
  #server: Deno.HttpServer<Deno.NetAddr>;
  #timer: ReturnType<typeof setInterval>;
  #probing: Promise<void> = Promise.resolve();
  url: string;

  constructor(urls: string[]) {
    this.upstreams = urls.map((url) => ({ url, ready: true }));
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
    this.url = `http://127.0.0.1:${this.#server.addr.port}`;
    this.#timer = setInterval(() => this.#probing = this.#probe(), 250);
  }

  /** A replica restarted on another port takes its old place. */
  replace(index: number, url: string): void {
    this.upstreams[index] = { url, ready: false };
  }

  async #probe(): Promise<void> {
    await Promise.all(this.upstreams.map(async (u) => {
      try {
        const res = await fetch(`${u.url}/ready`, { signal: AbortSignal.timeout(READY_CHECK_MS) });
        await res.body?.cancel();
        u.ready = res.status === 200;
      } catch {
        u.ready = false;
      }
    }));
  }

  async #handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const body = req.body ? new Uint8Array(await req.arrayBuffer()) : undefined;
    const headers = new Headers(req.headers);
    for (const h of HOP_BY_HOP) headers.delete(h);
    // Each live upstream at most once: a refused connection never reached the service, so
    // trying the next one cannot run anything twice.
    for (let tries = 0; tries < this.upstreams.length; tries++) {
      const live = this.upstreams.map((u, i) => ({ u, i })).filter(({ u }) => u.ready);
      if (live.length === 0) break;
      const { u, i } = live[this.#next++ % live.length];
      let res: Response;
      try {
        res = await fetch(`${u.url}${url.pathname}${url.search}`, {
          method: req.method,
          headers,
          body,
          redirect: "manual",
        });
      } catch (e) {
        u.ready = false;
        if (!isRefused(e)) return unavailable(`upstream ${i} failed mid-request`);
        continue;
      }
      const out = new Headers(res.headers);
      out.set("x-soak-upstream", `${i}`);
      return new Response(res.body, { status: res.status, headers: out });
    }
    return unavailable("no upstream is ready");
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#probing;
    await this.#server.shutdown();
  }
}

function isRefused(e: unknown): boolean {
  const text = `${(e as Error)?.message} ${(e as { cause?: Error })?.cause?.message}`;
  return /refused|ECONNREFUSED|os error 111/i.test(text);
}

/** The balancer's own refusal, in the service's envelope so clients need one parser. */
function unavailable(reason: string): Response {
  const correlationId = crypto.randomUUID();
  return Response.json({
    schema_version: 1,
    correlation_id: correlationId,
    error: {
      code: "service.unavailable",
      message: `The load balancer found no replica to answer: ${reason}`,
      user_message: "The service is unavailable. Try again shortly.",
      details: { reason: "no_upstream" },
      doc_url: null,
    },
  }, { status: 502, headers: { "SVC-Correlation-Id": correlationId, "Retry-After": "1" } });
}
