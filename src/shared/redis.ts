// The named export: under Deno the default import is the right class at runtime, but its type is
// the module namespace (CJS interop), so `new Redis()` would not type-check.
import { Redis, type RedisOptions } from "ioredis";
import { withTimeout } from "../lib/deadline.ts";
import { redactUrl } from "../lib/redact.ts";
import { Unavailable } from "../lib/unavailable.ts";
import { checkInteger, checkTtl } from "./args.ts";
import type { MessageHandler, SharedStore } from "./types.ts";

/** Options for {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Bound on connecting and on every command, in ms. Default 2000. */
  timeoutMs?: number;
}

/**
 * ioredis' messages for a command Redis did not take or answer: offline queue off, connection
 * lost under it (retried once, then "max retries"), the command timeout.
 */
const OFFLINE =
  /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|Command timed out|max retries per request/;

/** Longest pause between reconnect attempts, so recovery after an outage is quick. */
const MAX_BACKOFF_MS = 2_000;

// EXISTS first, so the window's expiry is set only by the call that creates the counter. A script
// rather than INCRBY + "PEXPIRE if result == by", which would restart a window that passed zero.
const INCREMENT_LUA = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if created and ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`;

// A script rather than MULTI: in MULTI, PEXPIRE still runs after RPUSH fails with WRONGTYPE and
// would put an expiry on somebody else's key. Chunked because unpack() has a stack limit.
const APPEND_LUA = `
local n = 0
for i = 2, #ARGV, 1000 do
  n = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** The scripts registered with defineCommand (ioredis adds them as methods at runtime). */
interface Scripts {
  sharedIncrement(key: string, by: string, ttlMs: string): Promise<number>;
  sharedAppend(key: string, ttlMs: string, ...values: string[]): Promise<number>;
}

/** Local handlers of one channel; `ready` settles when the SUBSCRIBE has been acknowledged. */
type Channel = { handlers: Set<{ handler: MessageHandler }>; ready: Promise<unknown> };

/**
 * {@link SharedStore} over Redis. Never hangs when Redis is down: commands are not queued while
 * disconnected and each one is time-bounded; the client keeps reconnecting in the background.
 */
export class RedisStore implements SharedStore {
  readonly kind = "redis" as const;
  readonly #rawUrl: string;
  /** The URL with its password masked: the only form that may appear in messages. */
  readonly #url: string;
  readonly #options: RedisOptions;
  readonly #timeoutMs: number;
  readonly #client: Redis & Scripts;
  #subscriber: Promise<Redis> | undefined;
  #channels = new Map<string, Channel>();
  #lastError: Error | undefined;
  #closed = false;

  /** Creates the store without connecting; prefer {@link RedisStore.connect}. */
  constructor(url: string, options: RedisStoreOptions = {}) {
    const timeoutMs = this.#timeoutMs = options.timeoutMs ?? 2_000;
    this.#rawUrl = url;
    this.#url = redactUrl(url);
    this.#options = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      // How long a closing socket may wait for the server's FIN before being destroyed; a silent
      // server would otherwise keep it (and close()) around for ioredis' default 2 s.
      disconnectTimeout: timeoutMs,
      retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, MAX_BACKOFF_MS),
    };
    this.#client = this.#open() as Redis & Scripts;
    this.#client.defineCommand("sharedIncrement", { numberOfKeys: 1, lua: INCREMENT_LUA });
    this.#client.defineCommand("sharedAppend", { numberOfKeys: 1, lua: APPEND_LUA });
  }

  /**
   * Connects and pings. Throws a message naming the URL (password masked) when Redis is
   * unreachable, and leaves no connection or reconnect timer behind in that case.
   */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const store = new RedisStore(url, options);
    try {
      await store.#connect(store.#client);
      await store.#client.ping();
      return store;
    } catch (error) {
      await store.close();
      throw new Error(`redis at ${store.#url} is unreachable: ${store.#reason(error)}`);
    }
  }

  /**
   * A command refused because Redis is out of reach (no connection, it closed under the command,
   * or it did not answer within the command timeout) becomes `Unavailable`, which every front end
   * answers 503 `service.unavailable`: an outage is not an unexpected error
   * (docs/operations.md#faults-and-the-soak).
   */
  async #offline<T>(command: Promise<T>): Promise<T> {
    try {
      return await command;
    } catch (error) {
      const message = (error as Error)?.message ?? "";
      if (OFFLINE.test(message)) {
        throw new Unavailable("the shared store is unreachable", { cause: error });
      }
      throw error;
    }
  }

  async get(key: string): Promise<string | null> {
    return await this.#offline(this.#client.get(key));
  }

  async set(
    key: string,
    value: string,
    options: { ttlMs?: number; onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    const ttlMs = checkTtl(options.ttlMs);
    const args: (string | number)[] = [key, value];
    if (ttlMs !== undefined) args.push("PX", ttlMs);
    if (options.onlyIfAbsent) args.push("NX");
    return (await this.#offline(this.#client.call("SET", ...args))) === "OK";
  }

  async delete(...keys: string[]): Promise<number> {
    if (keys.length === 0) return 0; // DEL without keys is a Redis syntax error
    return await this.#offline(this.#client.del(...keys));
  }

  async ttl(key: string): Promise<number> {
    return await this.#offline(this.#client.pttl(key));
  }

  async increment(key: string, options: { by?: number; ttlMs?: number } = {}): Promise<number> {
    const by = checkInteger(options.by ?? 1, "by");
    const ttlMs = checkTtl(options.ttlMs);
    return await this.#offline(this.#client.sharedIncrement(key, String(by), String(ttlMs ?? "")));
  }

  async append(key: string, values: string[], options: { ttlMs?: number } = {}): Promise<number> {
    const ttlMs = checkTtl(options.ttlMs);
    if (values.length === 0) return await this.length(key); // RPUSH needs at least one value
    return await this.#offline(this.#client.sharedAppend(key, String(ttlMs ?? ""), ...values));
  }

  async range(key: string, start: number, end: number): Promise<string[]> {
    return await this.#offline(
      this.#client.lrange(key, checkInteger(start, "start"), checkInteger(end, "end")),
    );
  }

  async length(key: string): Promise<number> {
    return await this.#offline(this.#client.llen(key));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#offline(this.#client.publish(channel, message));
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>> {
    // Otherwise a subscribe() after close() would open a fresh connection that nobody closes.
    if (this.#closed) throw new Error(`redis store for ${this.#url} is closed`);
    const subscriber = await this.#subscriberConnection();
    let entry = this.#channels.get(channel);
    if (entry === undefined) {
      entry = { handlers: new Set(), ready: subscriber.subscribe(channel) };
      this.#channels.set(channel, entry);
    }
    const sub = { handler };
    entry.handlers.add(sub);
    try {
      await entry.ready;
    } catch (error) {
      entry.handlers.delete(sub);
      if (this.#channels.get(channel) === entry) this.#channels.delete(channel);
      throw error;
    }
    const current = entry;
    return async () => {
      if (!current.handlers.delete(sub) || current.handlers.size > 0) return;
      if (this.#channels.get(channel) !== current) return;
      this.#channels.delete(channel);
      // Best effort: if Redis is down the subscription died with the connection anyway.
      await subscriber.unsubscribe(channel).catch(() => {});
    };
  }

  async ping(): Promise<void> {
    try {
      await this.#client.ping();
    } catch (error) {
      throw new Error(`redis at ${this.#url} did not answer: ${this.#reason(error)}`);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#channels.clear();
    await Promise.all([
      shutdown(this.#client, this.#timeoutMs),
      subscriber?.then((s) => shutdown(s, this.#timeoutMs), () => {}),
    ]);
  }

  #open(): Redis {
    // ioredis takes host, port, db, credentials and TLS (rediss:) from the URL itself.
    const client = new Redis(this.#rawUrl, this.#options);
    // Without a listener ioredis reports every failed reconnect as an unhandled error. The
    // reason is kept for the next failing call; the health probe is what reports outages.
    client.on("error", (error: Error) => this.#lastError = error);
    client.on("ready", () => this.#lastError = undefined); // don't blame a later failure on it
    return client;
  }

  /** The ioredis dedicated SUBSCRIBE connection, created on first use and shared by channels. */
  #subscriberConnection(): Promise<Redis> {
    this.#subscriber ??= (async () => {
      const subscriber = this.#open();
      subscriber.on("message", (channel: string, message: string) => {
        for (const { handler } of this.#channels.get(channel)?.handlers ?? []) {
          try {
            handler(message);
          } catch {
            // One subscriber's failure must not stop delivery to the others.
          }
        }
      });
      try {
        await this.#connect(subscriber);
      } catch (error) {
        this.#subscriber = undefined; // let the next subscribe() try again
        await shutdown(subscriber, this.#timeoutMs);
        throw new Error(`redis at ${this.#url} is unreachable: ${this.#reason(error)}`);
      }
      return subscriber;
    })();
    return this.#subscriber;
  }

  /** TCP connect and ready check are each bounded by ioredis; this bounds their sum too. */
  async #connect(client: Redis): Promise<void> {
    await withTimeout(client.connect(), this.#timeoutMs * 2, "connecting");
  }

  /** A failure reason without credentials; "Connection is closed" is replaced by its cause. */
  #reason(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const cause = this.#lastError?.message;
    const generic = /Connection is closed|Stream isn't writeable/.test(message);
    return redactUrl(generic && cause ? `${message} (${cause})` : message);
  }
}

/** Closes a connection and waits until its socket is gone, so nothing outlives close(). */
async function shutdown(client: Redis, timeoutMs: number): Promise<void> {
  // Between reconnect attempts there is no socket, and ioredis never emits "end" for a
  // disconnect() then: clearing the pending reconnect timer is all there is to do.
  if (!["connecting", "connect", "ready"].includes(client.status)) return client.disconnect();
  const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
  if (client.status === "ready") {
    await withTimeout(client.quit(), timeoutMs, "quit").catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
  // ioredis destroys the socket after disconnectTimeout, so "end" is due by then.
  await withTimeout(ended, timeoutMs + 500, "disconnect").catch(() => {});
}
