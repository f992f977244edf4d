import { beforeAll, describe, expect, it } from 'vitest';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { burnInScripted } from '../support/burn-in-flows.js';
import { signUpMoves, verifyCodeMoves } from '../support/email-moves.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useMailStack } from '../support/mail-stack.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { waitForRun, type Stack } from '../support/worker-context.js';

// Proctor's own inbox end to end: the fixture apps mail a code or a sign-in link over real SMTP (nodemailer) to the
// inbox's SMTP server, a burn-in records wait_for_email + {{EMAIL_CODE}} / open_link, and every replay reads the
// mail of its own run, with no model.
describe('email inbox: sign-up codes and magic links', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  const router = createRouter();
  const apps: Record<string, string> = {};
  const ids: Record<string, string> = {};

  const mail = useMailStack();
  beforeAll(() => {
    ({ fixture, llm, stack } = mail);
    Object.assign(apps, mail.apps);
  });

  async function burnIn(
    name: string,
    app: string,
    goal: string,
    moves: AgentMove[],
    extra: Record<string, unknown> = {},
  ): Promise<any> {
    const generated = await burnInScripted(
      stack,
      llm,
      router,
      { name, goal, moves, applicationShortId: apps[app]!, extra },
      90_000,
    );
    ids[name] = generated.id;
    return generated;
  }
  const replay = (name: string, run: string) =>
    stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId: ids[name]!,
      artifactPrefix: `runs/${run}/${name}`,
    });

  const signUp = signUpMoves;
  const verify = verifyCodeMoves;

  it('burns in a sign-up with an emailed code; each replay reads a fresh code with no LLM call; the model never saw the mail', async () => {
    const generated = await burnIn('signup', 'signup', 'Sign up and verify the email address', [
      ...signUp,
      ...verify,
      () => tool('done', { summary: 'verified' }),
    ]);
    const steps = generated.steps.steps;
    expect(steps.map((s: any) => s.action)).toEqual([
      'fill',
      'click',
      'wait_for_email',
      'fill',
      'click',
      'assert_text',
    ]);
    expect(steps[0].value).toBe('{{INBOX}}');
    expect(steps[2]).toMatchObject({
      value: '{{INBOX}}',
      email: { subject: 'Verify', timeoutMs: 5000, expects: ['code'], codeShape: '999999' },
    });
    expect(steps[3].value).toBe('{{EMAIL_CODE}}');
    // The model was told the code, never the mail.
    const seen = JSON.stringify(llm.requests);
    expect(seen).toContain(`{{EMAIL_CODE}} = ${fixture.mail.sent[0]!.secret}`);
    expect(seen).not.toContain('Welcome to Acme');
    expect(seen).not.toContain('0800 123 456');

    const calls = llm.requests.length;
    for (const run of ['r1', 'r2']) {
      const result = await replay('signup', run);
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('PASSED');
    }
    expect(llm.requests.length).toBe(calls);
    const [burnMail, first, second] = fixture.mail.sent;
    // Three sign-ups, three inboxes, three codes: each replay typed the code of its own mail.
    expect(new Set([burnMail!.to, first!.to, second!.to]).size).toBe(3);
    expect(new Set([burnMail!.secret, first!.secret, second!.secret]).size).toBe(3);
    expect(first!.to).toMatch(/^run-[0-9a-f]{16}@inbox\.proctor\.test$/);
  }, 150_000);

  it('fails the replay with a clear error when no mail arrives', async () => {
    fixture.mail.setMailVariant('silent');
    try {
      const result = await replay('signup', 'r3');
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(2);
      // The application's mail never reached us: not "the page showed something else".
      expect(result.failureKind).toBe('environment');
      expect(result.error).toMatch(
        /step 3 \(wait_for_email\).*no email to run-[0-9a-f]+@inbox\.proctor\.test with subject containing "Verify" arrived within 5 s/,
      );
    } finally {
      fixture.mail.setMailVariant('normal');
    }
  }, 60_000);

  it('burns in a magic-link sign-in; each replay opens the new link of its run', async () => {
    const goal = 'Sign in with a magic link';
    const generated = await burnIn('magic', 'magic', goal, [
      (r) =>
        tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{INBOX}}', description: 'Type the inbox address' }),
      (r) => tool('click', { ref: refOf(r, 'button "Email me a sign-in link"'), description: 'Ask for a link' }),
      () =>
        tool('wait_for_email', {
          to: '{{INBOX}}',
          subject: 'sign-in link',
          timeoutSeconds: 5,
          description: 'Wait for the link',
        }),
      () => tool('open_link', { description: 'Open the sign-in link' }),
      () => tool('assert_text', { text: 'Signed in as', description: 'Signed in' }),
      () => tool('done', { summary: 'signed in' }),
    ]);
    expect(generated.steps.steps.map((s: any) => s.action)).toEqual([
      'fill',
      'click',
      'wait_for_email',
      'open_link',
      'assert_text',
    ]);
    expect(generated.steps.steps[2].email).toMatchObject({ subject: 'sign-in link', expects: ['link'] });
    const before = fixture.mail.sent.length;
    const calls = llm.requests.length;
    for (const run of ['m1', 'm2']) {
      const result = await replay('magic', run);
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('PASSED');
    }
    expect(llm.requests.length).toBe(calls);
    const tokens = fixture.mail.sent.slice(before).map((m) => m.secret);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toBe(tokens[1]);
  }, 150_000);

  it('a sign-up and its resume-from verify-email dependent share one inbox in a plan run', async () => {
    await burnIn('chain signup', 'signup', 'Sign up only', [
      ...signUp,
      () => tool('assert_text', { text: 'We sent a code to', description: 'Code sent' }),
      () => tool('done', { summary: 'ok' }),
    ]);
    await burnIn(
      'chain verify',
      'signup',
      'Verify the emailed code',
      [...verify, () => tool('done', { summary: 'ok' })],
      { resumeFromDependencyProjectTestCaseId: ids['chain signup'] },
    );
    for (const name of ['chain signup', 'chain verify'])
      expect((await stack.call('PATCH', `/v1/test-cases/${ids[name]}`, { isEnabled: true })).status).toBe(200);
    const environment = (await stack.call('GET', `/v1/applications/${apps.signup}/environments`)).body.environments[0]
      .shortId;
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Sign-up chain',
      testCaseIds: [ids['chain signup'], ids['chain verify']],
      applications: [{ applicationShortId: apps.signup, environmentShortId: environment }],
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const before = fixture.mail.sent.length;
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId });
    const run = await waitForRun(stack, started.body.run.shortId);
    expect(run.result).toBe('PASSED');
    expect(run.runTestCases.map((t: any) => [t.name, t.result, t.error ?? null])).toEqual(
      expect.arrayContaining([
        ['chain signup', 'PASSED', null],
        ['chain verify', 'PASSED', null],
      ]),
    );
    // One sign-up in the run, so one mail: the dependent read the mail its dependency made the app send.
    const mails = fixture.mail.sent.slice(before);
    expect(mails).toHaveLength(1);
    const stored = await stack.db
      .selectFrom('inbox_messages')
      .select('to_address')
      .where('to_address', '=', mails[0]!.to)
      .execute();
    expect(stored).toHaveLength(1);
  }, 180_000);
});
