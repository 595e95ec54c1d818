/**
 * One message over SMTP with mandatory STARTTLS (nodemailer's SMTP connection). A failure to
 * reach the server (DNS, refused, connect timeout: the TCP connection never opened) is retried,
 * 3 attempts in all with 250 ms then 1 s between them. Anything after the connection opened is
 * terminal: past that point the server may already hold the message, and a second copy of a
 * password mail is worse than none. A server that does not offer STARTTLS is refused before a
 * single envelope command is sent.
 */
import type { Buffer } from "node:buffer";
import type MailComposerClass from "nodemailer/lib/mail-composer";
import type SMTPConnectionClass from "nodemailer/lib/smtp-connection";
import type { OutgoingMail } from "./types.ts";

interface Nodemailer {
  SMTPConnection: typeof SMTPConnectionClass;
  MailComposer: typeof MailComposerClass;
}

let loaded: Promise<Nodemailer> | undefined;

/**
 * nodemailer is loaded on the first send: an instance with mail off never pays for it, and
 * startup (and every test that builds the app) stays as quick as before mail existed.
 */
function nodemailer(): Promise<Nodemailer> {
  loaded ??= Promise.all([
    import("nodemailer/lib/smtp-connection"),
    import("nodemailer/lib/mail-composer"),
  ]).then(([c, m]) => ({ SMTPConnection: c.default, MailComposer: m.default }));
  return loaded;
}

export interface SmtpSettings {
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** PEM the server's certificate must chain to, instead of the system roots. */
  ca?: string;
  /** Opening the TCP connection (spec: 10 s). */
  connectTimeoutMs: number;
  /** Each wait for the server or the socket once connected (spec: 30 s). */
  ioTimeoutMs: number;
}

/** Pause between attempts after a connect failure: before the 2nd, before the 3rd. */
export const CONNECT_BACKOFF_MS = [250, 1000] as const;
export const MAX_ATTEMPTS = CONNECT_BACKOFF_MS.length + 1;

export type Delivery =
  | { ok: true; messageId: string; attempts: number }
  | { ok: false; error: string; attempts: number; stage: "connect" | "session" };

export interface DeliverHooks {
  /** Waits between attempts; tests pass one that waits on their own events. */
  sleep?: (ms: number) => Promise<void>;
  /** Told of each connect failure that will be retried. */
  onRetry?: (attempt: number, error: string, delayMs: number) => void;
}

/** A failure of one attempt, and whether the TCP connection had opened when it happened. */
class AttemptError extends Error {
  constructor(message: string, readonly connected: boolean) {
    super(message);
  }
}

function describe(e: unknown): string {
  const err = e as { code?: string; command?: string; message?: string };
  const parts = [err.code, err.command && err.command !== "CONN" ? err.command : undefined]
    .filter(Boolean);
  return `${parts.length ? `${parts.join(" ")}: ` : ""}${err.message ?? String(e)}`;
}

/** Sends `raw` once: connect, STARTTLS, optional login, envelope, data, quit. */
function attempt(
  { SMTPConnection }: Nodemailer,
  s: SmtpSettings,
  envelope: { from: string; to: string[] },
  raw: Buffer,
): Promise<void> {
  const conn = new SMTPConnection({
    host: s.host,
    port: s.port,
    secure: false,
    requireTLS: true,
    connectionTimeout: s.connectTimeoutMs,
    greetingTimeout: s.ioTimeoutMs,
    socketTimeout: s.ioTimeoutMs,
    tls: s.ca ? { ca: s.ca } : undefined,
    logger: false,
  });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      // Read the stage now: closing resets nothing, but the decision must reflect this failure.
      const connected = conn.stage === "connected";
      conn.close();
      reject(new AttemptError(describe(e), connected));
    };
    conn.on("error", fail);
    conn.on("end", () => fail(new Error("the server closed the connection")));
    conn.connect((err) => {
      if (err) return fail(err);
      if (!conn.secure) return fail(new Error("the session is not encrypted; refusing to send"));
      const send = () =>
        conn.send(envelope, raw, (e) => {
          if (e) return fail(e);
          settled = true;
          conn.quit();
          resolve();
        });
      if (s.username === undefined) return send();
      conn.login({ user: s.username, pass: s.password ?? "" }, (e) => e ? fail(e) : send());
    });
  });
}

/** Composes `mail` and delivers it under the retry policy; never throws. */
export async function deliver(
  s: SmtpSettings,
  mail: OutgoingMail,
  hooks: DeliverHooks = {},
): Promise<Delivery> {
  const sleep = hooks.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  let lib: Nodemailer;
  let node;
  let raw: Buffer;
  try {
    lib = await nodemailer();
    node = new lib.MailComposer({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      headers: { "Auto-Submitted": "auto-generated" },
    }).compile();
    raw = await node.build();
  } catch (e) {
    return { ok: false, error: describe(e), attempts: 0, stage: "session" };
  }
  const messageId = node.messageId();
  const envelope = node.getEnvelope();
  const to = envelope.to;
  for (let n = 1;; n++) {
    try {
      await attempt(lib, s, { from: envelope.from || mail.from, to }, raw);
      return { ok: true, messageId, attempts: n };
    } catch (e) {
      const err = e instanceof AttemptError ? e : new AttemptError(describe(e), true);
      if (err.connected || n >= MAX_ATTEMPTS) {
        return {
          ok: false,
          error: err.message,
          attempts: n,
          stage: err.connected ? "session" : "connect",
        };
      }
      const delay = CONNECT_BACKOFF_MS[n - 1];
      hooks.onRetry?.(n, err.message, delay);
      await sleep(delay);
    }
  }
}
