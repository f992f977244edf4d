import type OpenAI from 'openai';
import { emailFindings } from '../browser/steps/email-steps.js';
import type { RunValues } from '../domain/run-values.js';
import { defaultEmailTimeoutMs, emailCodeVariable, emailLinkVariable, runInboxVariable } from '../domain/inbox.js';
import type { Step } from '../domain/steps.js';

// The agent's side of the inbox: `wait_for_email` and `open_link` become steps that replay reads this run's mail
// with. The model learns the code and the link a mail held, never the mail itself.

const intent = { type: 'string' };

function tool(
  name: string,
  description: string,
  properties: Record<string, { type: string; description?: string }>,
  required: string[],
): OpenAI.ChatCompletionTool {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  };
}

export const emailTools: OpenAI.ChatCompletionTool[] = [
  tool(
    'wait_for_email',
    `Wait for a mail to {{${runInboxVariable}}} (this run's address: type it in forms) or {{INBOX:name}}, matching parts of subject, from, link if given; then fill {{${emailCodeVariable}}} or open_link`,
    {
      to: { type: 'string' },
      subject: { type: 'string' },
      from: { type: 'string' },
      linkPattern: { type: 'string' },
      timeoutSeconds: { type: 'number' },
      description: intent,
    },
    ['to', 'description'],
  ),
  tool('open_link', `Open {{${emailLinkVariable}}}, the last mail's link`, { description: intent }, ['description']),
];

/** The step for an email tool call, or undefined when `name` is not one. */
export function emailStep(name: string, args: Record<string, unknown>, description: string): Step | undefined {
  const str = (key: string): string | undefined =>
    typeof args[key] === 'string' && args[key] !== '' ? (args[key] as string) : undefined;
  if (name === 'open_link') return { action: 'open_link', value: `{{${emailLinkVariable}}}`, description };
  if (name !== 'wait_for_email') return undefined;
  const to = str('to');
  if (!to) throw new Error('wait_for_email needs "to", e.g. {{INBOX}}');
  const seconds =
    typeof args.timeoutSeconds === 'number' && args.timeoutSeconds > 0 ? Math.min(args.timeoutSeconds, 300) : undefined;
  const email = {
    ...(str('subject') && { subject: str('subject') }),
    ...(str('from') && { from: str('from') }),
    ...(str('linkPattern') && { linkPattern: str('linkPattern') }),
    timeoutMs: seconds ? Math.round(seconds * 1000) : defaultEmailTimeoutMs,
  };
  return { action: 'wait_for_email', value: to, email, description };
}

/** The history note of a performed email step: what was found, for the model's next move. */
export function emailNote(step: Step, values: RunValues): string {
  return step.action === 'wait_for_email' ? emailFindings(values) : '';
}
