/**
 * The mail notices (docs/access.md#mail). A notice is raised after the act that caused it has
 * committed; it is claimed in `mail_claims` by (user, kind, act) and sent off the request path on
 * a bounded pool (2 workers, queue 100; when full the caller sends it itself). Whatever happens
 * to the send, the caller gets an outcome, never an exception. Each send ends in one `mail.sent`
 * or `mail.failed` audit row (kind, recipient, act id, message id or error; never the body).
 * With mail off every notice is one INFO log line, `mail.skipped`.
 */
import { recordAudit } from "../audit/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { newUserMail, passwordResetMail, welcomeMail } from "./compose.ts";
import { BoundedPool } from "./pool.ts";
import { type ClaimKey, claimMail, finishMail } from "./repo.ts";
import { deliver, type SmtpSettings } from "./smtp.ts";
import type {
  MailActor,
  MailKind,
  MailOutcome,
  NewUserMail,
  OutgoingMail,
  PasswordMail,
} from "./types.ts";

export interface MailSettings {
  host?: string;
  port: number;
  from?: string;
  username?: string;
  password?: string;
  opsRecipients: string[];
  /** `service.auth.base-url`; required whenever mail is on (a startup refusal says so). */
  baseUrl?: string;
  /** PEM text of the CA the server's certificate must chain to. */
  ca?: string;
}

export interface MailServiceOptions {
  db: Db;
  logger: Logger;
  settings: MailSettings;
  /** 2 workers, queue of 100 (docs/access.md#mail). */
  workers?: number;
  queueCapacity?: number;
  /** Connect 10 s, read/write 30 s. */
  connectTimeoutMs?: number;
  ioTimeoutMs?: number;
  /** Waits between connect attempts; tests pass one driven by their own events. */
  sleep?: (ms: number) => Promise<void>;
}

export const MAIL_WORKERS = 2;
export const MAIL_QUEUE = 100;

/** One mail on its way: what claims it, who gets it, what it says, who caused it, what to hide. */
interface Notice {
  key: ClaimKey;
  recipient: string;
  mail: OutgoingMail;
  actor: MailActor;
  /** Values no log line or audit row may carry (the one-time password). */
  secrets: string[];
}

/** Removes secrets a server might echo back from an error text, and bounds its length. */
function scrub(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.replaceAll(s, "[redacted]");
  return out.slice(0, 500);
}

export class MailService {
  /** True exactly when both the SMTP host and the sender are configured. */
  readonly enabled: boolean;
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #settings: MailSettings;
  readonly #smtp?: SmtpSettings;
  readonly #pool: BoundedPool;
  readonly #sleep?: (ms: number) => Promise<void>;
  #closed = false;

  constructor(options: MailServiceOptions) {
    const s = options.settings;
    this.#db = options.db;
    this.#logger = options.logger;
    this.#settings = s;
    this.#sleep = options.sleep;
    this.enabled = s.host !== undefined && s.from !== undefined;
    if (this.enabled) {
      this.#smtp = {
        host: s.host!,
        port: s.port,
        username: s.username,
        password: s.password,
        ca: s.ca,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
        ioTimeoutMs: options.ioTimeoutMs ?? 30_000,
      };
    }
    this.#pool = new BoundedPool(
      options.workers ?? MAIL_WORKERS,
      options.queueCapacity ?? MAIL_QUEUE,
    );
  }

  /** To a newly created local user: login URL, email, one-time password, the forced change. */
  welcome(m: PasswordMail): Promise<MailOutcome> {
    return this.#password("welcome", m);
  }

  /** To a local user after an admin reset: same family as `welcome`. */
  passwordReset(m: PasswordMail): Promise<MailOutcome> {
    return this.#password("password_reset", m);
  }

  /**
   * To the ops recipients when a local account is created or a first social login occurs. Call
   * it after the creating transaction committed; `actId` must be that act's id, so raising the
   * same notice twice sends one mail.
   */
  newUser(m: NewUserMail): Promise<MailOutcome> {
    const key: ClaimKey = { userId: m.userId, kind: "new_user", actId: m.actId };
    const to = this.#settings.opsRecipients;
    if (!this.enabled) return Promise.resolve(this.#skip(key, to.join(", "), "mail is off"));
    if (to.length === 0) {
      return Promise.resolve(this.#skip(key, "", "no ops recipients configured"));
    }
    const mail = newUserMail(this.#compose(), m, to);
    return this.#submit({ key, recipient: to.join(", "), mail, actor: m.actor, secrets: [] });
  }

  /** Resolves once every accepted notice has been sent or has failed. */
  idle(): Promise<void> {
    return this.#pool.idle();
  }

  /**
   * Stops taking notices and lets the pool drain for up to `graceMs`; notices still waiting after
   * that are dropped (they were never claimed, and a WARN line counts them).
   */
  async close(graceMs = 30_000): Promise<void> {
    this.#closed = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      this.#pool.idle().then(() => false),
      new Promise<boolean>((r) => timer = setTimeout(() => r(true), graceMs)),
    ]);
    clearTimeout(timer);
    if (late) {
      const dropped = this.#pool.drop().length;
      if (dropped > 0) this.#logger.warn("mail.dropped", { reason: "shutdown", count: dropped });
      await this.#pool.idle();
    }
  }

  #password(kind: MailKind, m: PasswordMail): Promise<MailOutcome> {
    const key: ClaimKey = { userId: m.userId, kind, actId: m.actId };
    if (!this.enabled) return Promise.resolve(this.#skip(key, m.to, "mail is off"));
    const ctx = this.#compose();
    const mail = kind === "welcome" ? welcomeMail(ctx, m) : passwordResetMail(ctx, m);
    return this.#submit({
      key,
      recipient: m.to,
      mail,
      actor: m.actor,
      secrets: [m.oneTimePassword],
    });
  }

  #compose() {
    return { from: this.#settings.from!, baseUrl: this.#settings.baseUrl ?? "" };
  }

  #skip(key: ClaimKey, recipient: string, reason: string): MailOutcome {
    this.#logger.info("mail.skipped", {
      kind: key.kind,
      user_id: key.userId,
      act_id: key.actId,
      recipient,
      reason,
    });
    return "skipped";
  }

  async #submit(notice: Notice): Promise<MailOutcome> {
    const { key } = notice;
    if (this.#closed) {
      this.#logger.warn("mail.dropped", {
        reason: "shutting down",
        kind: key.kind,
        act_id: key.actId,
      });
      return "failed";
    }
    const task = () => this.#send(notice);
    if (this.#pool.offer(task)) return "queued";
    return await task();
  }

  /** Claim, send, record. Never throws. */
  async #send({ key, recipient, mail, actor, secrets }: Notice): Promise<MailOutcome> {
    const fields = { kind: key.kind, user_id: key.userId, act_id: key.actId };
    const hide = [...secrets, this.#settings.password];
    try {
      if (!await claimMail(this.#db, key, recipient)) {
        this.#logger.info("mail.duplicate", fields);
        return "duplicate";
      }
    } catch (e) {
      this.#logger.error("mail.claim_failed", { ...fields, error: scrub(String(e), hide) });
      return "failed";
    }
    const result = await deliver(this.#smtp!, mail, {
      sleep: this.#sleep,
      onRetry: (attempt, error, delayMs) =>
        this.#logger.warn("mail.connect_retry", {
          ...fields,
          attempt,
          delay_ms: delayMs,
          error: scrub(error, hide),
        }),
    });
    const error = result.ok ? undefined : scrub(result.error, hide);
    const details = {
      kind: key.kind,
      recipient,
      act_id: key.actId,
      target_user_id: key.userId,
      attempts: result.attempts,
      ...(result.ok ? { message_id: result.messageId } : { error, stage: result.stage }),
    };
    try {
      await this.#db.transaction(async (tx) => {
        await finishMail(
          tx,
          key,
          result.ok
            ? { status: "sent", messageId: result.messageId }
            : { status: "failed", error: error! },
        );
        await recordAudit(tx, {
          event: result.ok ? "mail.sent" : "mail.failed",
          by: actor,
          details,
        });
      });
    } catch (e) {
      this.#logger.error("mail.record_failed", { ...fields, error: scrub(String(e), hide) });
    }
    if (result.ok) {
      this.#logger.info("mail.sent", { ...fields, message_id: result.messageId });
    } else {
      this.#logger.warn("mail.failed", { ...fields, attempts: result.attempts, error });
    }
    return result.ok ? "sent" : "failed";
  }
}
