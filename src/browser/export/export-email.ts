// Proctor's inbox in an exported spec. The spec cannot reach Proctor's database, so it asks Proctor's API as a CI
// script would: an address per `{{INBOX}}` / `{{INBOX:name}}` when the test starts (POST /v1/inbox/addresses), then
// `wait_for_email` polls the project's mail (GET /v1/inbox/messages?to=…) for the newest match and reads the code
// and link Proctor takes from it (GET /v1/inbox/messages/{id}, with the code shape the burn-in recorded), as replay
// does.
import { emailCodeVariable, emailLinkVariable, inboxReferences, namedInboxPattern } from '../../domain/inbox.js';
import type { Step } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';

const setByMail = new Set([emailCodeVariable, emailLinkVariable]);

/** The `config` entry of an inbox or mail variable (filled while the test runs), or undefined for any other name. */
export function inboxConfigLine(name: string): string | undefined {
  if (inboxReferences([name]).length > 0)
    return `  ${quote(name)}: '', // an address of Proctor's inbox, made when the test starts`;
  if (setByMail.has(name)) return `  ${name}: '', // set by the wait_for_email step before it`;
  return undefined;
}

/** The test's first lines: an address for each inbox the steps type (a chain shares its `{{INBOX}}`, as in a plan run). */
export function inboxSetupLines(used: string[]): string[] {
  return inboxReferences(used).map((name) => {
    const named = namedInboxPattern.exec(name)?.[1];
    return `  config[${quote(name)}] = await inboxAddress(${named ? quote(named) : ''});`;
  });
}

export function usesInbox(steps: Step[]): boolean {
  return steps.some((s) => s.action === 'wait_for_email');
}

/** The helpers an inbox step calls, with the header comment that says what the spec needs to run. */
export function inboxHelpers(steps: Step[], used: string[]): string[] {
  if (!usesInbox(steps) && inboxReferences(used).length === 0) return [];
  return [
    '',
    "// Proctor's inbox: this test types addresses of Proctor's inbox ({{INBOX}} fresh for each run, {{INBOX:name}} the",
    "// project's fixed one) and reads the mail the application sends there through Proctor's API. Set",
    "//   PROCTOR_API_URL    Proctor's API, e.g. https://proctor.example.com (the API process runs the inbox's SMTP server)",
    '//   PROCTOR_API_TOKEN  a project API token (prt_…) of the project the test belongs to',
    '// The application under test must be able to send mail to the inbox domain (its MX, or SMTP straight to Proctor).',
    'async function proctorApi(path: string, init: { method?: string; body?: unknown } = {}): Promise<any> {',
    "  const base = (process.env.PROCTOR_API_URL ?? '').replace(/\\/$/, '');",
    "  if (!base || !process.env.PROCTOR_API_TOKEN) throw new Error('Set PROCTOR_API_URL and PROCTOR_API_TOKEN: this test reads mail from Proctor\\'s inbox');",
    '  const response = await fetch(`${base}${path}`, {',
    "    method: init.method ?? 'GET',",
    "    headers: { authorization: `Bearer ${process.env.PROCTOR_API_TOKEN}`, ...(init.body !== undefined && { 'content-type': 'application/json' }) },",
    '    body: init.body === undefined ? undefined : JSON.stringify(init.body),',
    '  });',
    "  if (!response.ok) throw new Error(`Proctor's API answered ${response.status} to ${init.method ?? 'GET'} ${path}: ${await response.text()}`);",
    '  return response.json();',
    '}',
    '',
    "// A named inbox keeps earlier runs' mail: only mail received after the address was handed out is this run's.",
    'const inboxSince: Record<string, string> = {};',
    'async function inboxAddress(name?: string): Promise<string> {',
    "  const { address, since } = await proctorApi('/v1/inbox/addresses', { method: 'POST', body: name ? { name } : {} });",
    '  inboxSince[address] = since;',
    '  return address;',
    '}',
    '',
    '// The newest mail to `to` whose subject and sender contain the given parts (any case), waiting up to the timeout.',
    "async function waitForEmail(to: string, match: { subject?: string; from?: string; linkPattern?: string; codeShape?: string; timeoutMs: number; expects: Array<'code' | 'link'> }): Promise<{ code: string | null; link: string | null }> {",
    '  const has = (value: string, part?: string) => !part || value.toLowerCase().includes(part.toLowerCase());',
    '  const deadline = Date.now() + match.timeoutMs;',
    '  for (;;) {',
    '    const { messages } = await proctorApi(`/v1/inbox/messages?to=${encodeURIComponent(to)}&limit=20`);',
    "    const found = messages.find((m: any) => m.receivedAt >= (inboxSince[to.toLowerCase()] ?? '') && has(m.subject, match.subject) && has(m.from, match.from));",
    '    if (found) {',
    '      // Proctor takes the code and the link as replay does: a code of the shape the burn-in saw, the link matching.',
    '      const take = new URLSearchParams({ ...(match.linkPattern && { linkPattern: match.linkPattern }), ...(match.codeShape && { codeShape: match.codeShape }) }).toString();',
    "      const mail = await proctorApi(`/v1/inbox/messages/${found.id}${take ? `?${take}` : ''}`);",
    "      const shaped = match.codeShape ? ` shaped ${match.codeShape}, as at burn-in` : '';",
    '      if (match.expects.includes(\'code\') && !mail.code) throw new Error(`the email "${mail.subject}" to ${to} holds no one-time code${shaped}`);',
    '      if (match.expects.includes(\'link\') && !mail.link) throw new Error(`the email "${mail.subject}" to ${to} holds no link`);',
    '      return mail;',
    '    }',
    '    const wanted = [match.subject && `subject containing "${match.subject}"`, match.from && `from "${match.from}"`].filter(Boolean).join(\' and \');',
    "    if (Date.now() >= deadline) throw new Error(`no email to ${to}${wanted ? ` with ${wanted}` : ''} arrived within ${Math.round(match.timeoutMs / 1000)} s`);",
    '    await new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(1, deadline - Date.now()))));',
    '  }',
    '}',
  ];
}
