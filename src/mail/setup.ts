/** Builds the mail service from the resolved configuration (wiring, called once at startup). */
import { type ResolvedConfig, StartupError } from "../config/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { MailService } from "./service.ts";

export async function createMailService(
  config: ResolvedConfig,
  deps: { db: Db; logger: Logger; sleep?: (ms: number) => Promise<void> },
): Promise<MailService> {
  const m = config.mail;
  if ((m.host === undefined) !== (m.from === undefined)) {
    // Not a refusal: mail is simply off, but half a configuration is almost always a mistake.
    deps.logger.warn("mail is off: set both service.mail.host and service.mail.from", {
      missing: m.host === undefined ? "service.mail.host" : "service.mail.from",
    });
  }
  let ca: string | undefined;
  if (m.caFile !== undefined) {
    try {
      ca = await Deno.readTextFile(m.caFile);
    } catch (e) {
      throw new StartupError(`service.mail.ca-file: cannot be read: ${(e as Error).message}`);
    }
  }
  const service = new MailService({
    db: deps.db,
    logger: deps.logger,
    sleep: deps.sleep,
    settings: {
      host: m.host,
      port: m.port,
      from: m.from,
      username: m.username,
      password: m.password,
      opsRecipients: m.opsRecipients,
      baseUrl: config.auth.baseUrl,
      ca,
    },
  });
  deps.logger.info(service.enabled ? "mail is on" : "mail is off", {
    ...(service.enabled ? { host: m.host, port: m.port, from: m.from } : {}),
  });
  return service;
}
