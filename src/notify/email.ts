import { createTransport } from 'nodemailer';

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}

export interface EmailSenderOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; nodemailer reads further options from its query string. */
  smtpUrl: string;
  /** The From header, e.g. `Proctor <proctor@example.com>`. */
  from: string;
  /** Bound on connecting, the greeting and each socket read, in ms. */
  timeoutMs?: number;
}

/**
 * An SMTP sender. nodemailer's own timeouts are minutes long; a notification must fail fast instead so the
 * activity's retry policy (not a hung socket) decides what happens next.
 */
export function createEmailSender(options: EmailSenderOptions): EmailSender {
  const timeout = options.timeoutMs ?? 15_000;
  const transport = createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    dnsTimeout: timeout,
  });
  return {
    async send(message) {
      if (message.to.length === 0) return;
      const info = await transport.sendMail({ from: options.from, ...message });
      // nodemailer resolves when at least one recipient was accepted; a refused one is still a failure to report.
      const rejected = info.rejected ?? [];
      if (rejected.length > 0) throw new Error(`SMTP server refused ${rejected.join(', ')}`);
    },
  };
}
