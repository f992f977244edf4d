// The inbox's SMTP server and its cleanup, hosted by the API process (`proctor api`, `proctor dev`): the process
// that already takes traffic from outside, and whose replicas share the database and blob store, so an MX record
// may point at any of them. Workers stay outbound-only and only read the mail a step waits for.
import type { Config } from '../config.js';
import type { DB } from '../db/database.js';
import { startInboxSmtpServer } from '../inbox/smtp-server.js';
import type { Logger } from '../logger.js';
import { acceptsMail, receiveMail, startMailCleanup } from '../services/inbox.js';
import type { BlobStore } from '../storage/blob-store.js';

export interface InboxHost {
  port: number;
  domain: string;
  stop(): Promise<void>;
}

export async function startInboxHost(
  config: Pick<Config, 'HOST' | 'PROCTOR_INBOX_DOMAIN' | 'PROCTOR_INBOX_MAX_BYTES'>,
  resources: { db: DB; blobs: BlobStore; logger: Logger },
  port: number,
): Promise<InboxHost> {
  const { db, blobs, logger } = resources;
  const smtp = await startInboxSmtpServer({
    host: config.HOST,
    port,
    domain: config.PROCTOR_INBOX_DOMAIN,
    maxBytes: config.PROCTOR_INBOX_MAX_BYTES,
    accepts: (address) => acceptsMail({ db }, address),
    deliver: async (raw, recipients) => void (await receiveMail({ db, blobs }, raw, recipients)),
    logger,
  });
  const stopCleanup = startMailCleanup({ db, blobs, logger });
  return {
    port: smtp.port,
    domain: config.PROCTOR_INBOX_DOMAIN.toLowerCase(),
    async stop() {
      await stopCleanup();
      await smtp.close();
    },
  };
}
