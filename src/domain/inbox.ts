// Proctor's own email inbox: the addresses tests type, which mail a step waits for, and what it takes from it (a
// one-time code or a link). Pure: the SMTP host, the replay and the export all follow these rules.
import { extractCode, htmlToText } from './mail-code.js';

export { codeShape, codeShapePattern, extractCode } from './mail-code.js';

/** A run's inbox (`{{INBOX}}`): one per run and dependency chain, one per burn-in. */
export const runInboxVariable = 'INBOX';
/** Set by a `wait_for_email` step from the newest matching mail, for the steps after it. */
export const emailCodeVariable = 'EMAIL_CODE';
export const emailLinkVariable = 'EMAIL_LINK';

/** How long received mail (rows and bodies) is kept. */
export const mailRetentionMs = 7 * 24 * 3600 * 1000;

/** `{{INBOX:support}}`: a project's fixed inbox named `support`. */
export const namedInboxPattern = /^INBOX:([a-z0-9][a-z0-9-]{0,30})$/;

/** The names a step references that are inboxes (`INBOX`, `INBOX:name`), so they can be made before it runs. */
export function inboxReferences(names: string[]): string[] {
  return names.filter((n) => n === runInboxVariable || namedInboxPattern.test(n));
}

/**
 * A named inbox's local part: the name and a tag of the project (a hash of its id, so two projects' `support`
 * inboxes differ and the address says nothing of the project's name).
 */
export function namedInboxLocalPart(name: string, projectTag: string): string {
  return `${name}.${projectTag}`;
}

/** Lower-cased and trimmed: SMTP local parts are case-insensitive in practice, and addresses are compared as typed. */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

/** Which mail a `wait_for_email` step waits for. `to` may reference `{{INBOX}}` / `{{INBOX:name}}`. */
export interface MailMatch {
  to: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
  /** Case-insensitive substring of the From header (address or name). */
  from?: string;
}

/** A `wait_for_email` step's settings (kept on the step; the address is the step's `value`). */
export interface EmailStep extends Omit<MailMatch, 'to'> {
  timeoutMs?: number;
  /** `EMAIL_LINK` is the first link whose URL contains this (else the most likely action link). */
  linkPattern?: string;
  /** What the mail held at burn-in: replay fails when a later mail lacks it, rather than typing nothing. */
  expects?: Array<'code' | 'link'>;
  /**
   * The shape of the code the mail held at burn-in (`AAAA-AAAA`, `999999`, `999 999`: letters A, digits 9): replay
   * and the exported spec take a code of this kind (`matchesShape`), and fail when the mail has none. Older steps
   * have none and take the likeliest code.
   */
  codeShape?: string;
}

export const defaultEmailTimeoutMs = 30_000;

export interface ReceivedMail {
  id: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  receivedAt: string;
}

/** What a step may read of the inbox; the worker passes one built over the database and blob store. */
export interface InboxAccess {
  /** A fresh address for a run (or a burn-in), registered so mail to it is accepted. */
  newRunInbox(): Promise<string>;
  /** The project's fixed inbox of that name, registered on first use. */
  namedInbox(name: string): Promise<string>;
  /** The newest mail to `match.to` (resolved) that matches, waiting up to `timeoutMs`; undefined if none came. */
  waitForMail(match: MailMatch, timeoutMs: number): Promise<ReceivedMail | undefined>;
}

const actionWords = /(verify|confirm|activate|sign[- ]?in|log[- ]?in|magic|reset|token|auth|invite|accept)/i;
const unlikely = /(unsubscribe|privacy|terms|preferences|mailto:|\.(png|jpe?g|gif|svg|css)(\?|$))/i;

/**
 * The code of a mail (of `shape` when given, see `EmailStep.codeShape`): from its text part, else from its HTML read
 * as lines (a mail whose text part is a stub still carries its code in the HTML).
 */
export function mailCode(mail: Pick<ReceivedMail, 'text' | 'html'>, shape?: string): string | undefined {
  // Only the HTML's first megabyte: its code is near the top, and the text read of it stops at 200,000 characters.
  return extractCode(mail.text, shape) ?? extractCode(htmlToText(mail.html.slice(0, 1_000_000)), shape);
}

/** The links of a mail, in order: `href`s of the HTML part, else URLs in the text. */
export function mailLinks(mail: Pick<ReceivedMail, 'text' | 'html'>): string[] {
  const fromHtml = [...mail.html.matchAll(/<a\b[^>]*\bhref\s*=\s*("([^"]*)"|'([^']*)')/gi)].map((m) =>
    decodeEntities(m[2] ?? m[3] ?? ''),
  );
  const fromText = [...mail.text.matchAll(/https?:\/\/[^\s<>"')\]]+/g)].map((m) => m[0]);
  return [...new Set([...fromHtml, ...fromText].filter((u) => /^https?:\/\//i.test(u)))];
}

/** The first link containing `pattern`, else the most likely action link (verify, sign in…), else the first one. */
export function extractLink(mail: Pick<ReceivedMail, 'text' | 'html'>, pattern?: string): string | undefined {
  const links = mailLinks(mail);
  if (pattern) return links.find((l) => l.includes(pattern));
  const candidates = links.filter((l) => !unlikely.test(l));
  return candidates.find((l) => actionWords.test(l)) ?? candidates[0];
}

function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/gi, '/')
    .replace(/&#47;/g, '/')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** A mail matches a step when its subject and sender contain what the step names (any case). */
export function matchesMail(
  mail: Pick<ReceivedMail, 'from' | 'subject'>,
  match: Pick<MailMatch, 'subject' | 'from'>,
): boolean {
  const has = (value: string, part?: string) => !part || value.toLowerCase().includes(part.toLowerCase());
  return has(mail.subject, match.subject) && has(mail.from, match.from);
}
