// Proctor's email inbox as business operations: which addresses accept mail, storing what arrives (metadata in
// Postgres, bodies in the blob store), reading it back for the API and for waiting steps, and forgetting it after
// seven days. The SMTP server (src/inbox) only speaks the protocol and calls in here.
import { createHash, randomBytes } from 'node:crypto';
import type { DB } from '../db/database.js';
import { dashboardInboxPage } from '../db/queries/dashboard-inbox.js';
import {
  deleteInboxMessages,
  deleteStaleInboxAddresses,
  expiredInboxMessages,
  getInboxMessage,
  inboxAddressOwner,
  insertInboxMessage,
  listInboxMessages,
  mailTo,
  registerInboxAddress,
  type InboxMessageRow,
} from '../db/queries/inbox.js';
import { NotFoundError } from '../domain/errors.js';
import {
  extractLink,
  mailCode,
  mailRetentionMs,
  matchesMail,
  namedInboxLocalPart,
  normalizeAddress,
  type InboxAccess,
  type MailMatch,
  type ReceivedMail,
} from '../domain/inbox.js';
import { newId } from '../ids.js';
import { inboxMails } from '../metrics.js';
import { parseMail } from '../inbox/parse.js';
import type { Logger } from '../logger.js';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store.js';
import type { ServiceContext } from './context.js';

interface StoredBodies {
  text: string;
  html: string;
}

export interface InboxMessageView {
  id: string;
  to: string;
  from: string;
  subject: string;
  sizeBytes: number;
  receivedAt: string;
}

const toView = (row: InboxMessageRow): InboxMessageView => ({
  id: row.id,
  to: row.to,
  from: row.from,
  subject: row.subject,
  sizeBytes: row.sizeBytes,
  receivedAt: row.receivedAt.toISOString(),
});

const runPrefix = 'run-';

/** Whether Proctor takes mail for this address (one it handed out); the SMTP server asks at RCPT TO. */
export async function acceptsMail({ db }: ServiceContext, address: string): Promise<boolean> {
  const accepted = (await inboxAddressOwner(db, normalizeAddress(address))) !== undefined;
  if (!accepted) inboxMails.inc({ outcome: 'unknown_recipient' });
  return accepted;
}

/** Parses one received message and stores a copy per accepted recipient (each project sees only its own). */
export async function receiveMail(
  deps: ServiceContext<'blobs'>,
  raw: Buffer,
  recipients: string[],
  now = new Date(),
): Promise<string[]> {
  const mail = await parseMail(raw);
  const bodies = Buffer.from(JSON.stringify({ text: mail.text, html: mail.html } satisfies StoredBodies));
  const stored: string[] = [];
  for (const to of new Set(recipients.map(normalizeAddress))) {
    const projectId = await inboxAddressOwner(deps.db, to);
    if (!projectId) continue;
    const id = newId();
    const blobKey = `inbox/${projectId}/${id}.json`;
    await deps.blobs.put(blobKey, bodies, 'application/json');
    await insertInboxMessage(deps.db, {
      id,
      projectId,
      to,
      from: mail.from.slice(0, 500),
      subject: mail.subject.slice(0, 1000),
      sizeBytes: raw.length,
      blobKey,
      receivedAt: now,
      expiresAt: new Date(now.getTime() + mailRetentionMs),
    });
    stored.push(id);
    inboxMails.inc({ outcome: 'stored' });
  }
  return stored;
}

export async function listMessages(
  { db }: ServiceContext,
  projectId: string,
  filter: { to?: string; limit?: number },
): Promise<InboxMessageView[]> {
  const rows = await listInboxMessages(db, projectId, {
    to: filter.to && normalizeAddress(filter.to),
    limit: filter.limit ?? 50,
  });
  return rows.map(toView);
}

/**
 * One message of the project with its bodies and the code and link a `wait_for_email` step takes from it (an
 * exported spec reads them here, with the step's recorded code shape); NotFoundError for another project's or an
 * expired one.
 */
export async function getMessage(
  deps: ServiceContext<'blobs'>,
  projectId: string,
  id: string,
  take: { linkPattern?: string; codeShape?: string } = {},
): Promise<InboxMessageView & StoredBodies & { code: string | null; link: string | null }> {
  const row = await getInboxMessage(deps.db, projectId, id);
  if (!row) throw new NotFoundError('Message');
  const bodies = await readBodies(deps.blobs, row.blobKey);
  return {
    ...toView(row),
    ...bodies,
    code: mailCode(bodies, take.codeShape) ?? null,
    link: extractLink(bodies, take.linkPattern) ?? null,
  };
}

/**
 * A page of the project's mail for the dashboard, newest first, each with the code and link a step would take
 * (what a person checks when a mail step failed). A body already cleaned up shows neither.
 */
export async function inboxPage(
  deps: ServiceContext<'blobs'>,
  projectId: string,
  query: { to?: string; page: number; pageSize: number },
): Promise<{ messages: Array<InboxMessageView & { code: string | null; link: string | null }>; total: number }> {
  const { rows, total } = await dashboardInboxPage(deps.db, projectId, {
    to: query.to && normalizeAddress(query.to),
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  });
  const messages = await Promise.all(
    rows.map(async (row) => {
      const bodies = await readBodies(deps.blobs, row.blobKey).catch((err: unknown) =>
        err instanceof NotFoundError ? undefined : Promise.reject(err),
      );
      return {
        ...toView(row),
        code: (bodies && mailCode(bodies)) ?? null,
        link: (bodies && extractLink(bodies)) ?? null,
      };
    }),
  );
  return { messages, total };
}

async function readBodies(blobs: BlobStore, key: string): Promise<StoredBodies> {
  try {
    return JSON.parse((await blobs.get(key)).toString('utf8')) as StoredBodies;
  } catch (err) {
    // Its row outlived the bodies by a moment (cleanup deletes the blob first): it is as good as gone.
    if (err instanceof BlobNotFoundError) throw new NotFoundError('Message', 'it has expired');
    throw err;
  }
}

/** Deletes mail past its 7 days (bodies first, then rows) and run inboxes nothing can reach any more. */
export async function deleteExpiredMail(
  deps: ServiceContext<'blobs'>,
  now = new Date(),
): Promise<{ messages: number; addresses: number }> {
  let messages = 0;
  for (;;) {
    const batch = await expiredInboxMessages(deps.db, now);
    if (batch.length === 0) break;
    for (const m of batch)
      await deps.blobs
        .delete(m.blobKey)
        .catch((err: unknown) => (err instanceof BlobNotFoundError ? undefined : Promise.reject(err)));
    await deleteInboxMessages(
      deps.db,
      batch.map((m) => m.id),
    );
    messages += batch.length;
  }
  const addresses = await deleteStaleInboxAddresses(
    deps.db,
    new Date(now.getTime() - mailRetentionMs),
    `${runPrefix}%`,
  );
  return { messages, addresses };
}

/** Runs `deleteExpiredMail` now and then every `everyMs` until stopped. */
export function startMailCleanup(
  deps: ServiceContext<'blobs'> & { logger: Logger },
  everyMs = 3600_000,
): () => Promise<void> {
  const sweep = () =>
    deleteExpiredMail(deps).then(
      (deleted) => deleted.messages + deleted.addresses > 0 && deps.logger.info('inbox: expired mail deleted', deleted),
      (err: unknown) => deps.logger.warn('inbox: cleanup failed', { err }),
    );
  void sweep();
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  return async () => clearInterval(timer);
}

/** A tag of the project in its named inbox addresses: stable, short, and not its id or name. */
function projectTag(projectId: string): string {
  return createHash('sha256').update(`proctor-inbox:${projectId}`).digest('hex').slice(0, 8);
}

/** Registers (or finds) `{{INBOX:name}}`'s address for the project, or a fresh run address without a name. */
async function registerAddress(db: DB, projectId: string, domain: string, name?: string): Promise<string> {
  const local = name
    ? namedInboxLocalPart(name, projectTag(projectId))
    : `${runPrefix}${randomBytes(8).toString('hex')}`;
  const address = `${local}@${domain.toLowerCase()}`;
  await registerInboxAddress(db, projectId, address);
  return address;
}

/**
 * An address for a caller outside a run (an exported spec): `{{INBOX}}` fresh, `{{INBOX:name}}` the project's. A
 * named inbox keeps older mail, so `since` (this server's clock) tells the caller which mail is its own.
 */
export async function createInboxAddress(
  { db }: ServiceContext,
  projectId: string,
  domain: string,
  name?: string,
): Promise<{ address: string; since: string }> {
  const since = new Date().toISOString();
  return { address: await registerAddress(db, projectId, domain, name), since };
}

/**
 * What a run's steps may do with the inbox: make addresses, wait for mail to them. A named inbox outlives runs, so
 * its mail counts only from when this access was made (a run's start); a run's inbox is the run's alone.
 */
export function createInboxAccess(
  deps: ServiceContext<'blobs'> & { domain: string; pollMs?: number },
  projectId: string,
  signal?: AbortSignal,
): InboxAccess {
  const since = new Date();
  return {
    newRunInbox: () => registerAddress(deps.db, projectId, deps.domain),
    namedInbox: (name) => registerAddress(deps.db, projectId, deps.domain, name),
    async waitForMail(match: MailMatch, timeoutMs: number): Promise<ReceivedMail | undefined> {
      const to = normalizeAddress(match.to);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const fresh = (m: InboxMessageRow) => to.startsWith(runPrefix) || m.receivedAt >= since;
        const found = (await mailTo(deps.db, to)).find((m) => fresh(m) && matchesMail(m, match));
        if (found)
          return {
            id: found.id,
            from: found.from,
            subject: found.subject,
            receivedAt: found.receivedAt.toISOString(),
            ...(await readBodies(deps.blobs, found.blobKey)),
          };
        if (Date.now() >= deadline || signal?.aborted) return undefined;
        await new Promise((r) => setTimeout(r, Math.min(deps.pollMs ?? 250, Math.max(1, deadline - Date.now()))));
      }
    },
  };
}
