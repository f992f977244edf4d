import { createTransport } from 'nodemailer';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performAction, type ActionOptions } from '../../src/browser/steps/actions.js';
import { classifyFailure } from '../../src/browser/replay/replay-failures.js';
import { RunValues } from '../../src/domain/run-values.js';
import { startInboxHost, type InboxHost } from '../../src/cli/inbox.js';
import type { EmailStep } from '../../src/domain/inbox.js';
import type { Step } from '../../src/domain/steps.js';
import type { FailureKind } from '../../src/domain/verdicts.js';
import { silentLogger } from '../../src/logger.js';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';
import { createInboxAccess } from '../../src/services/inbox.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { freePort } from '../support/net.js';

// Every way a mail step fails, each with the kind a run reports: a mail that never came is the application's mail
// not reaching us (environment), a mail without what it held at burn-in is the application answering otherwise
// (assertion), a step missing its address or link is the test's, a worker without an inbox is Proctor's. Real
// inbox (SMTP into the database), real Chromium, performAction as replay calls it.

const domain = 'inbox.proctor.test';

describe('wait_for_email and open_link: what failed, and which kind it is', () => {
  let ctx: ApiContext;
  let host: InboxHost;
  let browser: Browser;
  let page: Page;
  let closedPort: number;

  beforeAll(async () => {
    ctx = await createApiContext('pglite');
    host = await startInboxHost(
      { HOST: '127.0.0.1', PROCTOR_INBOX_DOMAIN: domain, PROCTOR_INBOX_MAX_BYTES: 64 * 1024 },
      { db: ctx.db, blobs: ctx.deps.blobs, logger: silentLogger },
      0,
    );
    browser = await chromium.launch({ executablePath: loadPrograms().chromium, args: chromiumFlags });
    page = await browser.newPage();
    closedPort = await freePort();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await ctx?.close();
  });

  const inbox = () =>
    createInboxAccess({ db: ctx.db, blobs: ctx.deps.blobs, domain, pollMs: 50 }, ctx.tenant.projectId);
  const send = (to: string, text: string, html = '') =>
    createTransport({ host: '127.0.0.1', port: host.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'Acme <no-reply@acme.test>',
      to,
      subject: 'Your Acme code',
      text,
      html,
    });
  const waitStep = (email: EmailStep): Step => ({
    action: 'wait_for_email',
    value: '{{INBOX}}',
    email: { subject: 'Acme', timeoutMs: 1500, ...email },
    description: 'Wait for the mail',
  });

  /** Runs the step on a fresh inbox address (after `mail` is sent to it); the error it fails with, if any. */
  async function run(
    step: Step,
    opts: { mail?: [string, string?]; withInbox?: boolean; values?: RunValues } = {},
  ): Promise<{ err?: Error; values: RunValues }> {
    const values = opts.values ?? new RunValues();
    const access = opts.withInbox === false ? undefined : inbox();
    if (access && step.value === '{{INBOX}}') values.set('INBOX', await access.newRunInbox());
    if (opts.mail) await send(values.resolve('{{INBOX}}'), ...opts.mail);
    const options: ActionOptions = { baseUrl: 'http://127.0.0.1', values, timeoutMs: 3000, inbox: access };
    const err = await performAction(page, step, undefined, options).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    return { err, values };
  }

  const cases: Array<[string, () => Promise<{ err?: Error }>, FailureKind, RegExp]> = [
    [
      'no mail arrives in time',
      () => run(waitStep({ expects: ['code'] })),
      'environment',
      /no email to run-[0-9a-f]{16}@inbox\.proctor\.test with subject containing "Acme" arrived within 2 s/,
    ],
    [
      'the mail holds no code',
      () => run(waitStep({ expects: ['code'] }), { mail: ['Welcome to Acme! Thanks for signing up.'] }),
      'assertion',
      /holds no one-time code \(step: Wait for the mail\)/,
    ],
    [
      'the mail holds a code of another shape than at burn-in',
      () =>
        run(waitStep({ expects: ['code'], codeShape: 'AAAA-AAAA' }), { mail: ['Your verification code is 482913.'] }),
      'assertion',
      /holds no one-time code shaped AAAA-AAAA, as at burn-in \(only one shaped 999999\)/,
    ],
    [
      'the mail holds no link',
      () => run(waitStep({ expects: ['link'] }), { mail: ['Your verification code is 482913.'] }),
      'assertion',
      /holds no link \(step: Wait for the mail\)/,
    ],
    [
      'the mail holds no link containing the pattern',
      () =>
        run(waitStep({ expects: ['link'], linkPattern: '/callback' }), {
          mail: ['Sign in: https://acme.test/other?t=1'],
        }),
      'assertion',
      /holds no link containing "\/callback"/,
    ],
    [
      'the step has no address',
      () => run({ action: 'wait_for_email', value: '', email: { expects: ['code'] }, description: 'Wait' }),
      'test-definition',
      /needs the address to wait at/,
    ],
    [
      'the worker has no inbox',
      () => run(waitStep({ expects: ['code'] }), { withInbox: false }),
      'infrastructure',
      /needs Proctor's inbox/,
    ],
    [
      'open_link without a link',
      () => run({ action: 'open_link', value: '', description: 'Open' }),
      'test-definition',
      /open_link needs a link: wait for an email first/,
    ],
    [
      'open_link to an application that does not answer',
      () => run({ action: 'open_link', value: `http://127.0.0.1:${closedPort}/verify?t=1`, description: 'Open' }),
      'environment',
      /net::ERR_CONNECTION_REFUSED/,
    ],
  ];

  it.each(cases.map(([name, act, kind, message]) => ({ name, act, kind, message })))(
    '$name: $kind',
    async ({ name, act, kind, message }) => {
      const { err } = await act();
      expect(err, 'the step must fail').toBeDefined();
      expect(err!.message).toMatch(message);
      const step = { action: name.startsWith('open_link') ? 'open_link' : 'wait_for_email', description: '' } as Step;
      expect(classifyFailure(step, err, undefined)).toBe(kind);
    },
    20_000,
  );

  it('burn-in records what the mail held and its code shape; replay takes a code of that shape over a nearer one', async () => {
    const burnIn = waitStep({});
    const allauth = 'Hello from Acme!\n\nYour sign-in code is listed below.\n\nCNSV-HCXK\n\nThank you for using Acme!';
    const recorded = await run(burnIn, { mail: [allauth] });
    expect(recorded.err).toBeUndefined();
    expect(burnIn.email).toMatchObject({ expects: ['code'], codeShape: 'AAAA-AAAA' });
    expect(recorded.values.resolve('{{EMAIL_CODE}}')).toBe('CNSV-HCXK');
    // A later mail opens with a support PIN nearer the word "code": replay still takes the kind it recorded.
    const replayed = await run(burnIn, {
      mail: ['Your support PIN code: 4417\n\nYour sign-in code is listed below.\n\nQWRT-XKPD'],
    });
    expect(replayed.err).toBeUndefined();
    expect(replayed.values.resolve('{{EMAIL_CODE}}')).toBe('QWRT-XKPD');
    // A step recorded before shapes were kept takes the likeliest code, as it always did.
    const older = waitStep({ expects: ['code'] });
    const old = await run(older, { mail: ['Your verification code is 482913.'] });
    expect(old.err).toBeUndefined();
    expect(old.values.resolve('{{EMAIL_CODE}}')).toBe('482913');
    expect(older.email!.codeShape).toBeUndefined();
  }, 20_000);
});
