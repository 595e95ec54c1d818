/** Mail: the welcome, password_reset and new_user notices over SMTP with mandatory STARTTLS. */
export { createMailService } from "./setup.ts";
export {
  MAIL_QUEUE,
  MAIL_WORKERS,
  MailService,
  type MailServiceOptions,
  type MailSettings,
} from "./service.ts";
export type * from "./types.ts";
