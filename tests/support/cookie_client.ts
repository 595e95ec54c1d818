/**
 * A tiny browser for redirect dances across origins: keeps cookies per origin and path, follows
 * redirects itself (POST answers by 302/303 become GETs), and can stop before a chosen URL so a
 * test can look at (or replay) the request it would have made.
 */
export interface Hop {
  url: URL;
  response: Response;
}

interface Cookie {
  value: string;
  path: string;
}

function pathMatches(path: string, cookiePath: string): boolean {
  return cookiePath === "/" || path === cookiePath ||
    path.startsWith(cookiePath.endsWith("/") ? cookiePath : `${cookiePath}/`);
}

export class CookieClient {
  /** origin → `name|path` → cookie */
  readonly jar = new Map<string, Map<string, Cookie>>();

  cookie(origin: string, name: string): string | undefined {
    for (const [key, c] of this.jar.get(origin) ?? []) {
      if (key.startsWith(`${name}|`)) return c.value;
    }
    return undefined;
  }

  setCookie(origin: string, name: string, value: string, path = "/"): void {
    const jar = this.jar.get(origin) ?? new Map<string, Cookie>();
    jar.set(`${name}|${path}`, { value, path });
    this.jar.set(origin, jar);
  }

  #header(url: URL): string | undefined {
    const pairs = [...(this.jar.get(url.origin) ?? [])]
      .filter(([, c]) => pathMatches(url.pathname, c.path))
      .map(([key, c]) => `${key.split("|")[0]}=${c.value}`);
    return pairs.length ? pairs.join("; ") : undefined;
  }

  #store(url: URL, res: Response): void {
    const jar = this.jar.get(url.origin) ?? new Map<string, Cookie>();
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const pathAttr = attrs.find((a) => /^path=/i.test(a));
      const path = pathAttr ? pathAttr.slice(5) : "/";
      const expired = attrs.some((a) =>
        /^max-age=0$/i.test(a) ||
        (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now())
      );
      if (expired || value === "") jar.delete(`${name}|${path}`);
      else jar.set(`${name}|${path}`, { value, path });
    }
    this.jar.set(url.origin, jar);
  }

  /** One request, no redirect followed; cookies sent and stored. */
  async request(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input);
    const headers = new Headers(init.headers);
    const cookie = this.#header(url);
    if (cookie) headers.set("cookie", cookie);
    if (!headers.has("accept")) headers.set("accept", "text/html");
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    this.#store(url, res);
    return res;
  }

  /**
   * Follows redirects from `input` until a non-redirect answer, or until the next URL satisfies
   * `stopBefore` (then that URL is returned unrequested). Bodies of passed hops are released.
   */
  async follow(
    input: string | URL,
    init: RequestInit = {},
    stopBefore?: (url: URL) => boolean,
  ): Promise<{ last: Hop; next?: URL }> {
    let url = new URL(input);
    let req = init;
    for (let i = 0; i < 20; i++) {
      const response = await this.request(url, req);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) {
        return { last: { url, response } };
      }
      await response.body?.cancel();
      const next = new URL(location, url);
      if (stopBefore?.(next)) return { last: { url, response }, next };
      url = next;
      req = {};
    }
    throw new Error("too many redirects");
  }
}
