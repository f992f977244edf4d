import type { Page } from 'playwright-core';
import {
  codeShape,
  defaultEmailTimeoutMs,
  emailCodeVariable,
  emailLinkVariable,
  mailCode,
  extractLink,
  inboxReferences,
  namedInboxPattern,
  runInboxVariable,
  type EmailStep,
  type InboxAccess,
  type ReceivedMail,
} from '../../domain/inbox.js';
import { configReferences, type Step } from '../../domain/steps.js';
import type { FailureKind } from '../../domain/verdicts.js';
import type { RunValues } from '../../domain/run-values.js';

// The inbox steps: `wait_for_email` reads the newest matching mail of this run's inbox and sets {{EMAIL_CODE}} and
// {{EMAIL_LINK}} for the steps after it; `open_link` opens {{EMAIL_LINK}}. Their kinds (email.ts) call here; errors
// are plain and performAction words them for the run.

/**
 * A mail step's failure with its kind (replay's classifyFailure reads it): a mail that never came is the application
 * not reaching us (`environment`), a mail without the code or link it held at burn-in is the application answering
 * otherwise (`assertion`), a step without an address or a link to open is the test's (`test-definition`), and a
 * worker without an inbox is Proctor's (`infrastructure`).
 */
export class MailStepError extends Error {
  override name = 'MailStepError';
  constructor(
    message: string,
    readonly kind: FailureKind,
  ) {
    super(message);
  }
}

export interface EmailContext {
  values: RunValues;
  inbox?: InboxAccess;
  timeoutMs: number;
}

/**
 * Gives `{{INBOX}}` (a fresh address, unless the run carries its chain's) and `{{INBOX:name}}` (the project's fixed
 * one) their values before a step that references them resolves its text.
 */
export async function prepareInboxValues(step: Step, ctx: Pick<EmailContext, 'values' | 'inbox'>): Promise<void> {
  const wanted = inboxReferences(configReferences(step.value ?? '')).filter((name) => !ctx.values.has(name));
  if (wanted.length === 0) return;
  if (!ctx.inbox)
    throw new MailStepError(
      `{{${wanted[0]}}} needs Proctor's inbox, which this worker has no domain for (PROCTOR_INBOX_DOMAIN)`,
      'infrastructure',
    );
  for (const name of wanted) {
    const named = namedInboxPattern.exec(name)?.[1];
    ctx.values.set(name, named ? await ctx.inbox.namedInbox(named) : await ctx.inbox.newRunInbox());
  }
}

/** The address a run hands on to its dependents (see BrowserState.inbox), if it made one. */
export function carriedInbox(values: RunValues): string | undefined {
  return values.has(runInboxVariable) ? values.resolve(`{{${runInboxVariable}}}`) : undefined;
}

export async function performEmailStep(
  page: Page,
  step: Step,
  value: string | undefined,
  ctx: EmailContext,
): Promise<void> {
  if (step.action === 'open_link') {
    if (!value) throw new MailStepError('open_link needs a link: wait for an email first', 'test-definition');
    await page.goto(value, { waitUntil: 'domcontentloaded', timeout: Math.max(ctx.timeoutMs, 15_000) });
    return;
  }
  if (!ctx.inbox)
    throw new MailStepError("wait_for_email needs Proctor's inbox (PROCTOR_INBOX_DOMAIN)", 'infrastructure');
  if (!value) throw new MailStepError('wait_for_email needs the address to wait at, e.g. {{INBOX}}', 'test-definition');
  const email: EmailStep = step.email ?? {};
  const timeoutMs = email.timeoutMs ?? defaultEmailTimeoutMs;
  const mail = await ctx.inbox.waitForMail({ to: value, subject: email.subject, from: email.from }, timeoutMs);
  if (!mail) {
    const matching = [email.subject && `subject containing "${email.subject}"`, email.from && `from "${email.from}"`]
      .filter(Boolean)
      .join(' and ');
    throw new MailStepError(
      `no email to ${value}${matching ? ` with ${matching}` : ''} arrived within ${Math.round(timeoutMs / 1000)} s`,
      'environment',
    );
  }
  const code = mailCode(mail, email.codeShape);
  const link = extractLink(mail, email.linkPattern);
  // Burn-in notes what the mail held, and the shape of its code; a replay whose mail lacks it (or has only a code of
  // another kind) fails here, not by typing an empty or a wrong code later.
  const recording = step.email !== undefined && email.expects === undefined;
  const expects =
    email.expects ??
    (step.email ? (step.email.expects = [...(code ? ['code' as const] : []), ...(link ? ['link' as const] : [])]) : []);
  if (recording && code) step.email!.codeShape = codeShape(code);
  if (expects.includes('code') && !code)
    throw new MailStepError(
      `the email "${mail.subject}" to ${value} holds no one-time code${shapeNote(mail, email.codeShape)}`,
      'assertion',
    );
  if (expects.includes('link') && !link)
    throw new MailStepError(
      `the email "${mail.subject}" to ${value} holds no link${email.linkPattern ? ` containing "${email.linkPattern}"` : ''}`,
      'assertion',
    );
  if (code) ctx.values.set(emailCodeVariable, code);
  if (link) ctx.values.set(emailLinkVariable, link);
}

/** For a mail without a code of the recorded shape: which shape was wanted, and what the mail had instead. */
function shapeNote(mail: Pick<ReceivedMail, 'text' | 'html'>, shape: string | undefined): string {
  if (!shape) return '';
  const other = mailCode(mail);
  return ` shaped ${shape}, as at burn-in${other ? ` (only one shaped ${codeShape(other)})` : ''}`;
}

/** What the model is told a `wait_for_email` found: the code and the link only, never the mail. */
export function emailFindings(values: RunValues): string {
  const found = [emailCodeVariable, emailLinkVariable]
    .filter((n) => values.has(n))
    .map((n) => `{{${n}}} = ${values.resolve(`{{${n}}}`)}`);
  return found.length > 0 ? ` (${found.join(', ')})` : ' (no code or link found)';
}
