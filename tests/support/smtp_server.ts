/**
 * A real SMTP server for tests (the `smtp-server` package) on a loopback port, offering STARTTLS
 * with a self-signed certificate made by `openssl` in a temp dir. It keeps every message it was
 * given, decoded enough to assert on, and lets a test wait for events with a deadline.
 */
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export interface Received {
  from: string;
  to: string[];
  raw: string;
  /** Lower-cased names, unfolded, RFC 2047 words decoded. */
  headers: Record<string, string>;
  /** The decoded text body. */
  body: string;
  /** True when the message travelled inside TLS. */
  secure: boolean;
}

export interface SmtpServerOptions {
  /** Offer STARTTLS (default true). */
  starttls?: boolean;
  /** Require this login. */
  auth?: { user: string; pass: string };
  /** Answer the end of DATA with this error instead of accepting. */
  rejectData?: { code: number; message: string };
  /** Listen on this port (default: any free one). */
  port?: number;
}

export interface TestSmtpServer {
  port: number;
  /** Connections opened so far. */
  connections: number;
  /** MAIL FROM commands seen (reached only after the session is set up). */
  envelopes: number;
  /** DATA transfers seen, accepted or not. */
  dataCount: number;
  messages: Received[];
  /** Resolves when `check()` holds; rejects after `deadlineMs`. */
  until(check: () => boolean, deadlineMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface TestCertificate {
  dir: string;
  key: string;
  cert: string;
  /** Path of the certificate, usable as `service.mail.ca-file`. */
  certFile: string;
}

let certificate: Promise<TestCertificate> | undefined;

/** One self-signed certificate for `localhost` and 127.0.0.1, made once per test process. */
export function testCertificate(): Promise<TestCertificate> {
  certificate ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc_smtp_cert_" });
    const out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        `${dir}/key.pem`,
        "-out",
        `${dir}/cert.pem`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`openssl failed: ${new TextDecoder().decode(out.stderr)}`);
    return {
      dir,
      key: await Deno.readTextFile(`${dir}/key.pem`),
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      certFile: `${dir}/cert.pem`,
    };
  })();
  return certificate;
}

/** A loopback port nothing listens on (bound, then released). */
export function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

function decodeWords(value: string): string {
  return value.replace(
    /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=\s*/g,
    (_, _cs, enc: string, text: string) => {
      if (enc.toUpperCase() === "B") {
        return new TextDecoder().decode(
          Uint8Array.from(atob(text), (c) => c.charCodeAt(0)),
        );
      }
      const bytes = text.replaceAll("_", " ").replace(
        /=([0-9A-F]{2})/gi,
        (_m, h) => String.fromCharCode(parseInt(h, 16)),
      );
      return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
    },
  );
}

/** Splits a raw message into unfolded headers and a decoded single-part text body. */
export function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  let body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  let bytes: Uint8Array | undefined;
  if (encoding === "quoted-printable") {
    const text = body.replace(/=\r\n/g, "").replace(
      /=([0-9A-F]{2})/gi,
      (_m, h) => String.fromCharCode(parseInt(h, 16)),
    );
    bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  } else if (encoding === "base64") {
    bytes = Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  }
  if (bytes) body = new TextDecoder().decode(bytes);
  return { headers, body: body.replace(/\r\n/g, "\n") };
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const { key, cert } = await testCertificate();
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const state: TestSmtpServer = {
    port: 0,
    connections: 0,
    envelopes: 0,
    dataCount: 0,
    messages: [],
    until(check, deadlineMs = 15_000) {
      if (check()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`SMTP test server: condition not met within ${deadlineMs} ms`));
        }, deadlineMs);
        const waiter = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const config: SMTPServerOptions = {
    key,
    cert,
    logger: false,
    authOptional: !options.auth,
    allowInsecureAuth: false,
    ...(options.starttls === false ? { hideSTARTTLS: true, disabledCommands: ["STARTTLS"] } : {}),
    onConnect(_session, callback) {
      state.connections++;
      notify();
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) {
        return callback(null, { user: auth.username });
      }
      callback(new Error("Invalid username or password"));
    },
    onMailFrom(_address, _session, callback) {
      state.envelopes++;
      notify();
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", () => {
        state.dataCount++;
        if (options.rejectData) {
          notify();
          const err = new Error(options.rejectData.message) as Error & { responseCode: number };
          err.responseCode = options.rejectData.code;
          return callback(err);
        }
        const total = chunks.reduce((n, c) => n + c.length, 0);
        const all = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        const raw = new TextDecoder().decode(all);
        state.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...parseMessage(raw),
          secure: session.secure,
        });
        notify();
        callback();
      });
    },
  };
  const server = new SMTPServer(config);
  // A client refusing our certificate ends the TLS handshake with an alert; that is the test's
  // point, not a crash.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  state.port = (server.server.address() as { port: number }).port;
  return state;
}
