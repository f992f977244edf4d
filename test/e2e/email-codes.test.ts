import { codeShape } from '../../src/domain/mail-code.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { codeStyles, type CodeStyle } from '../support/fixtures/code-auth.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { useMailStack } from '../support/mail-stack.js';
import { expectBatchSpecPassed, runPlaywrightSpec, runPlaywrightSpecs } from '../support/playwright-runner.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { waitForGeneration, type Stack } from '../support/worker-context.js';

// Passwordless sign-up and sign-in by emailed code, as django-allauth (CNSV-HCXK), Clerk (482913), an OTP mailer
// (583 102) and a login-code mailer (Q7KM42ZX) send them: each flow is burned in through the real inbox (SMTP) with
// the scripted model, replays twice on fresh mails and codes (the fixture takes only the latest code, once), and
// its exported spec passes under @playwright/test. One stack for the file.
describe('sign-up and sign-in by emailed code, in every code style', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let api: ServedApp;
  const mail = useMailStack();
  const router = createRouter();
  const ids: Record<string, string> = {};
  const specs: Record<string, string> = {};

  beforeAll(async () => {
    ({ fixture, llm, stack } = mail);
    api = await serveOverHttp(stack.app);
  });
  afterAll(() => api?.close());

  const confirm: AgentMove[] = [
    () =>
      tool('wait_for_email', {
        to: '{{INBOX}}',
        subject: 'code',
        timeoutSeconds: 5,
        description: 'Wait for the code mail',
      }),
    (r) => tool('fill', { ref: refOf(r, 'textbox "Code"'), value: '{{EMAIL_CODE}}', description: 'Type the code' }),
    (r) => tool('click', { ref: refOf(r, 'button "Confirm"'), description: 'Confirm' }),
  ];
  const flows = {
    signup: [
      (r) => tool('fill', { ref: refOf(r, 'textbox "Name"'), value: 'Jane', description: 'Type a name' }),
      (r) =>
        tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{INBOX}}', description: "Type this run's inbox" }),
      (r) => tool('click', { ref: refOf(r, 'button "Sign up"'), description: 'Sign up' }),
      ...confirm,
      () => tool('assert_text', { text: 'Account created', description: 'Account created' }),
      () => tool('done', { summary: 'signed up' }),
    ],
    login: [
      (r) =>
        tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{INBOX}}', description: "Type this run's inbox" }),
      (r) => tool('click', { ref: refOf(r, 'button "Email me a sign-in code"'), description: 'Ask for a code' }),
      ...confirm,
      () => tool('assert_text', { text: 'Signed in as', description: 'Signed in' }),
      () => tool('done', { summary: 'signed in' }),
    ],
  } satisfies Record<string, AgentMove[]>;
  /** The shape burn-in must record: fixed for the fixed styles; mixed codes vary where their digits fall. */
  const shapes: Record<CodeStyle, RegExp> = {
    letters: /^[A9]{4}-[A9]{4}$/,
    digits: /^9{6}$/,
    spaced: /^999 999$/,
    mixed: /^(?=.*A)(?=.*9)[A9]{8}$/,
  };
  const runSpec = (spec: string) =>
    runPlaywrightSpec(spec, { PROCTOR_API_URL: api.url, PROCTOR_API_TOKEN: stack.tenant.token });
  const replay = (name: string, run: string) =>
    stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId: ids[name]!,
      artifactPrefix: `runs/${run}/${name.replace(/ /g, '-')}`,
    });

  const cases = codeStyles.flatMap((style) =>
    (['signup', 'login'] as const).map((purpose) => ({ style, purpose, name: `${purpose} ${style}` })),
  );

  it.each(cases)(
    '$name: burns in on the real inbox and replays twice with fresh codes',
    async ({ style, purpose, name }) => {
      const app = await mail.addApplication(name, `/codes/${style}/${purpose}`);
      const goal = `${purpose === 'signup' ? 'Sign up' : 'Sign in'} with an emailed code (${style})`;
      const moves = flows[purpose];
      router.add(goal, moves);
      llm.enqueue(...moves.map(() => router.reply));
      const sentBefore = fixture.codes.sent.length;
      const created = await stack.call('POST', '/v1/test-cases', {
        name,
        goal,
        expectedResult: 'as scripted',
        applicationShortId: app,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids[name] = created.body.testCase.id;
      const generated = await waitForGeneration(stack, ids[name]!, 90_000);
      expect(generated.failureReason).toBeNull();
      const wait = generated.steps.steps.find((s: any) => s.action === 'wait_for_email');
      expect(wait.email.expects).toContain('code');
      expect(wait.email.codeShape).toMatch(shapes[style]);
      // The burn-in's mail, then the verifying replay's (a burn-in is COMPLETED only once its steps replay).
      const [burnIn, verifying] = fixture.codes.sent.slice(sentBefore);
      expect(fixture.codes.sent.length - sentBefore).toBe(2);
      // The model was told the code of its own mail, never the mail.
      expect(JSON.stringify(llm.requests)).toContain(`{{EMAIL_CODE}} = ${burnIn!.secret}`);

      const calls = llm.requests.length;
      for (const run of ['r1', 'r2']) {
        const result = await replay(name, `${run}-${style}-${purpose}`);
        expect(result.error).toBeUndefined();
        expect(result.status).toBe('PASSED');
      }
      specs[name] = await stack.call('GET', `/v1/test-cases/${ids[name]}/playwright`).then((r) => r.body as string);
      expect(specs[name]).toContain(`"codeShape":"${wait.email.codeShape}"`);
      expect(llm.requests.length).toBe(calls);

      // Burn-in, its verifying replay, two replays: four addresses, four mails, four codes of the style, each typed
      // once (the exported spec's run, the fifth, is checked below).
      const mails = fixture.codes.sent.slice(sentBefore);
      expect(mails.slice(0, 2)).toEqual([burnIn, verifying]);
      expect(mails).toHaveLength(4);
      expect(new Set(mails.map((m) => m.to)).size).toBe(4);
      expect(new Set(mails.map((m) => m.secret)).size).toBe(4);
      expect(mails.filter((m) => !shapes[style].test(codeShape(m.secret)))).toEqual([]);
      // An earlier code does not work any more: the fixture takes the latest code of an address, once.
      const stale = await fetch(`${fixture.url}/codes/${style}/confirm`, {
        method: 'POST',
        body: new URLSearchParams({ email: burnIn!.to, code: burnIn!.secret }),
      });
      expect(stale.status).toBe(400);
    },
    240_000,
  );

  // The eight exported specs run in one @playwright/test runner (one runner start instead of eight), each its own file
  // with its own verdict: each signs up or in on a fresh inbox with the fresh code of its style, no model involved.
  it('the exported specs pass under @playwright/test, each on a fresh address with a fresh code of its style', async () => {
    expect(Object.keys(specs).sort(), 'every style was burned in above').toEqual(cases.map((c) => c.name).sort());
    const addressesBefore = new Set(fixture.codes.sent.map((m) => m.to));
    const sentBefore = fixture.codes.sent.length;
    const calls = llm.requests.length;
    const batch = await runPlaywrightSpecs(specs, { PROCTOR_API_URL: api.url, PROCTOR_API_TOKEN: stack.tenant.token });
    for (const { name } of cases) expectBatchSpecPassed(batch, name);
    expect(batch.code).toBe(0);
    expect(llm.requests.length).toBe(calls);
    // One mail per spec, each to an address no earlier run used, each code new and of the style its page mails.
    const mails = fixture.codes.sent.slice(sentBefore);
    expect(mails).toHaveLength(cases.length);
    expect(new Set(mails.map((m) => m.to)).size).toBe(cases.length);
    expect(mails.filter((m) => addressesBefore.has(m.to))).toEqual([]);
    expect(new Set(mails.map((m) => m.secret)).size).toBe(cases.length);
    const styles = mails.map((m) => codeStyles.find((style) => shapes[style].test(codeShape(m.secret))));
    expect(styles.sort()).toEqual(cases.map((c) => c.style).sort());
  }, 180_000);

  it('fails a replay and the exported spec, naming why, when the mail carries no code of the recorded kind', async () => {
    const name = 'login letters';
    expect(specs[name], 'the letters sign-in was burned in above').toBeDefined();
    // The application now mails six digits where it mailed CNSV-HCXK: the page would take them, but it is not the
    // mail the test was recorded on.
    fixture.codes.setStyleOverride('digits');
    try {
      const result = await replay(name, 'wrong-kind');
      expect(result.status).toBe('FAILED');
      expect(result.failureKind).toBe('assertion');
      expect(result.error).toMatch(
        /wait_for_email.*holds no one-time code shaped [A9]{4}-[A9]{4}, as at burn-in \(only one shaped 999999\)/,
      );
      const spec = await runSpec(specs[name]!);
      expect(spec.code).not.toBe(0);
      expect(spec.output).toMatch(/holds no one-time code shaped [A9]{4}-[A9]{4}, as at burn-in/);
    } finally {
      fixture.codes.setStyleOverride(undefined);
    }
  }, 120_000);
});
