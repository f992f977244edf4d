import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burnInScripted } from '../support/burn-in-flows.js';
import { signUpMoves, verifyCodeMoves } from '../support/email-moves.js';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useMailStack } from '../support/mail-stack.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { expectBatchSpecPassed, runPlaywrightSpec, runPlaywrightSpecs } from '../support/playwright-runner.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import type { Stack } from '../support/worker-context.js';

// Exported specs that read Proctor's inbox: the fixture apps mail over real SMTP to the stack's inbox, and the spec,
// run by @playwright/test in another process, gets its addresses from and reads the mail through Proctor's API
// served over real HTTP (PROCTOR_API_URL / PROCTOR_API_TOKEN), with no model and no database access.
describe('exported specs with email steps', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let api: ServedApp;
  const router = createRouter();
  const apps: Record<string, string> = {};

  const mail = useMailStack();
  beforeAll(async () => {
    ({ fixture, llm, stack } = mail);
    Object.assign(apps, mail.apps);
    api = await serveOverHttp(stack.app);
  });
  afterAll(() => api?.close());

  async function burnInAndExport(name: string, app: string, goal: string, moves: AgentMove[]): Promise<string> {
    const generated = await burnInScripted(
      stack,
      llm,
      router,
      { name, goal, moves, applicationShortId: apps[app]! },
      90_000,
    );
    const exported = await stack.call('GET', `/v1/test-cases/${generated.id}/playwright`);
    expect(exported.status).toBe(200);
    return exported.body as string;
  }
  const runSpec = (
    spec: string,
    env: Record<string, string> = { PROCTOR_API_URL: api.url, PROCTOR_API_TOKEN: stack.tenant.token },
  ) => runPlaywrightSpec(spec, env);

  let signUpSpec: string;

  it('exports a sign-up with an emailed code; the spec passes on a fresh address with the fresh code, no model involved', async () => {
    signUpSpec = await burnInAndExport('signup', 'signup', 'Sign up and verify the email address', [
      ...signUpMoves,
      ...verifyCodeMoves,
      () => tool('done', { summary: 'verified' }),
    ]);
    // What a person reading the spec needs to run it is in its header.
    expect(signUpSpec).toMatch(/PROCTOR_API_URL {4}Proctor's API/);
    expect(signUpSpec).toContain('PROCTOR_API_TOKEN  a project API token');
    expect(signUpSpec).not.toContain('cannot be exported yet');
    const burnIn = fixture.mail.sent.at(-1)!;
    const calls = llm.requests.length;

    const result = await runSpec(signUpSpec);
    expect(result.output).toMatch(/1 passed/);
    expect(result.code).toBe(0);
    expect(llm.requests.length).toBe(calls);
    // The spec signed up with an address of its own and typed the code of the mail that address got.
    const mail = fixture.mail.sent.at(-1)!;
    expect(mail.to).toMatch(/^run-[0-9a-f]{16}@inbox\.proctor\.test$/);
    expect(mail.to).not.toBe(burnIn.to);
    expect(mail.secret).not.toBe(burnIn.secret);
  }, 120_000);

  it('fails the spec when no mail arrives, and without Proctor API settings', async () => {
    fixture.mail.setMailVariant('silent');
    try {
      const result = await runSpec(signUpSpec);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(
        /no email to run-[0-9a-f]{16}@inbox\.proctor\.test with subject containing "Verify" arrived within 5 s/,
      );
    } finally {
      fixture.mail.setMailVariant('normal');
    }
    const unset = await runSpec(signUpSpec, { PROCTOR_API_URL: '', PROCTOR_API_TOKEN: '' });
    expect(unset.code).not.toBe(0);
    expect(unset.output).toContain('Set PROCTOR_API_URL and PROCTOR_API_TOKEN');
    const wrongToken = await runSpec(signUpSpec, { PROCTOR_API_URL: api.url, PROCTOR_API_TOKEN: 'prt_not-a-token' });
    expect(wrongToken.code).not.toBe(0);
    expect(wrongToken.output).toMatch(/Proctor's API answered 401 to POST \/v1\/inbox\/addresses/);
  }, 120_000);

  it("exports a magic-link sign-in on a named inbox: each run opens its own new link, never an earlier run's mail", async () => {
    const spec = await burnInAndExport('magic', 'magic', 'Sign in with a magic link', [
      (r) =>
        tool('fill', {
          ref: refOf(r, 'textbox "Email"'),
          value: '{{INBOX:qa}}',
          description: "Type the project's qa inbox",
        }),
      (r) => tool('click', { ref: refOf(r, 'button "Email me a sign-in link"'), description: 'Ask for a link' }),
      () =>
        tool('wait_for_email', {
          to: '{{INBOX:qa}}',
          subject: 'sign-in link',
          linkPattern: '/callback',
          timeoutSeconds: 5,
          description: 'Wait for the link',
        }),
      () => tool('open_link', { description: 'Open the sign-in link' }),
      () => tool('assert_text', { text: 'Signed in as qa.', description: 'Signed in' }),
      () => tool('done', { summary: 'signed in' }),
    ]);
    const before = fixture.mail.sent.length;
    // Two runs of the spec, one after the other in one runner (two files, two verdicts).
    const twice = await runPlaywrightSpecs(
      { first: spec, second: spec },
      { PROCTOR_API_URL: api.url, PROCTOR_API_TOKEN: stack.tenant.token },
    );
    for (const name of ['first', 'second']) expectBatchSpecPassed(twice, name);
    expect(twice.code).toBe(0);
    const runs = fixture.mail.sent.slice(before);
    expect(runs).toHaveLength(2);
    // One fixed address across the burn-in and both runs, and a new one-use link each time.
    expect(new Set(fixture.mail.sent.slice(before - 1).map((m) => m.to)).size).toBe(1);
    expect(runs[0]!.to).toMatch(/^qa\.[0-9a-f]{8}@inbox\.proctor\.test$/);
    expect(runs[0]!.secret).not.toBe(runs[1]!.secret);

    // The inbox still holds three mails with links; a run whose own mail never comes must not take one of them.
    fixture.mail.setMailVariant('silent');
    try {
      const result = await runSpec(spec);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(
        /no email to qa\.[0-9a-f]{8}@inbox\.proctor\.test with subject containing "sign-in link" arrived within 5 s/,
      );
    } finally {
      fixture.mail.setMailVariant('normal');
    }
  }, 150_000);
});
