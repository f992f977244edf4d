// The inbox steps' kinds: `wait_for_email` reads the newest matching mail of this run's inbox and sets
// {{EMAIL_CODE}} and {{EMAIL_LINK}} for the steps after it; `open_link` opens {{EMAIL_LINK}}. What they do is in
// email-steps.ts (replay's failure kinds read its MailStepError); the model learns the code and the link, never the mail.
import { z } from 'zod';
import { defaultEmailTimeoutMs, emailCodeVariable, emailLinkVariable, runInboxVariable } from '../../domain/inbox.js';
import { performEmailStep } from './email-steps.js';
import { defineStepKind } from './kind.js';

export const waitForEmail = defineStepKind({
  tool: 'wait_for_email',
  description: `Wait for a mail to {{${runInboxVariable}}} (this run's address: type it in forms) or {{INBOX:name}}, matching parts of subject, from, link if given; then fill {{${emailCodeVariable}}} or open_link`,
  args: z.object({
    to: z.string({ error: 'wait_for_email needs "to", e.g. {{INBOX}}' }),
    subject: z.string().optional(),
    from: z.string().optional(),
    linkPattern: z.string().optional(),
    timeoutSeconds: z.number().optional(),
  }),
  group: 'email',
  actions: ['wait_for_email'],
  failure: 'infrastructure',
  example: { to: '{{INBOX}}', subject: 'Welcome', timeoutSeconds: 30 },
  toStep: ({ to, subject, from, linkPattern, timeoutSeconds }, { description }) => {
    const seconds = timeoutSeconds !== undefined && timeoutSeconds > 0 ? Math.min(timeoutSeconds, 300) : undefined;
    const email = {
      ...(subject && { subject }),
      ...(from && { from }),
      ...(linkPattern && { linkPattern }),
      timeoutMs: seconds ? Math.round(seconds * 1000) : defaultEmailTimeoutMs,
    };
    return { action: 'wait_for_email', value: to, email, description };
  },
  perform: async ({ page, step, value, opts }) => performEmailStep(page, step, value, opts),
  exportStatement: (step, { value }) => {
    const email = step.email ?? {};
    const match = {
      ...(email.subject && { subject: email.subject }),
      ...(email.from && { from: email.from }),
      ...(email.linkPattern && { linkPattern: email.linkPattern }),
      ...(email.codeShape && { codeShape: email.codeShape }),
      timeoutMs: email.timeoutMs ?? defaultEmailTimeoutMs,
      expects: email.expects ?? [],
    };
    return [
      `{ const mail = await waitForEmail(${value}, ${JSON.stringify(match)});`,
      `if (mail.code) config.${emailCodeVariable} = mail.code;`,
      `if (mail.link) config.${emailLinkVariable} = mail.link; }`,
    ].join(' ');
  },
});

export const openLink = defineStepKind({
  tool: 'open_link',
  description: `Open {{${emailLinkVariable}}}, the last mail's link`,
  args: z.object({}),
  group: 'email',
  actions: ['open_link'],
  failure: 'environment',
  example: {},
  toStep: (_args, { description }) => ({ action: 'open_link', value: `{{${emailLinkVariable}}}`, description }),
  perform: async ({ page, step, value, opts }) => performEmailStep(page, step, value, opts),
  exportStatement: (_step, { value }) =>
    `{ const link = ${value}; if (!link) throw new Error('open_link needs a link: wait for an email first'); await page.goto(link); }`,
});
