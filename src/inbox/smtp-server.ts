import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import type { Logger } from '../logger.js';
import { normalizeAddress } from '../domain/inbox.js';
import { inboxMails } from '../metrics.js';

export interface InboxSmtpOptions {
  host: string;
  port: number;
  /** Only mail to this domain is taken; anything else is refused at RCPT TO (Proctor is no relay). */
  domain: string;
  /** Larger messages are refused: announced in EHLO (SIZE) and enforced while the data streams. */
  maxBytes: number;
  /** Whether an address of the domain is one Proctor handed out (a run's or a named inbox). */
  accepts(address: string): Promise<boolean>;
  /** Stores one message for the accepted recipients; a throw answers 451 so the sender retries later. */
  deliver(raw: Buffer, recipients: string[]): Promise<void>;
  logger: Logger;
}

export interface InboxSmtpServer {
  port: number;
  close(): Promise<void>;
}

class SmtpRefusal extends Error {
  constructor(
    message: string,
    readonly responseCode: number,
  ) {
    super(message);
  }
}

/**
 * The SMTP server that receives mail for Proctor's inboxes: no authentication (like any MX), no TLS (a deployment
 * puts it behind its mail relay or a TLS terminator), one domain, a size limit.
 */
export async function startInboxSmtpServer(options: InboxSmtpOptions): Promise<InboxSmtpServer> {
  const domain = options.domain.toLowerCase();
  const server = new SMTPServer({
    name: domain,
    banner: 'Proctor inbox',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: options.maxBytes,
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const to = normalizeAddress(address.address);
      if (!to.endsWith(`@${domain}`)) {
        inboxMails.inc({ outcome: 'other_domain' });
        return callback(new SmtpRefusal(`relay access denied: this server accepts mail for @${domain} only`, 550));
      }
      options
        .accepts(to)
        .then((known) => callback(known ? undefined : new SmtpRefusal(`no such mailbox: ${to}`, 550)))
        .catch((err: unknown) => {
          options.logger.error('inbox: recipient lookup failed', { err });
          callback(new SmtpRefusal('temporary failure, try again later', 451));
        });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          inboxMails.inc({ outcome: 'too_large' });
          return callback(new SmtpRefusal(`message larger than ${options.maxBytes} bytes`, 552));
        }
        const recipients = session.envelope.rcptTo.map((r) => normalizeAddress(r.address));
        options.deliver(Buffer.concat(chunks), recipients).then(
          () => callback(),
          (err: unknown) => {
            options.logger.error('inbox: could not store a message', { err });
            callback(new SmtpRefusal('temporary failure storing the message, try again later', 451));
          },
        );
      });
    },
  });
  server.on('error', (err) => options.logger.warn('inbox: SMTP connection error', { err: err.message }));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
