import { beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { createRouter, lastPrompt, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { previewAccess, totpAccount } from '../support/fixtures/auth-toolkit.js';
import { addProtectedPreview, addTotpSignIn } from '../support/auth-toolkit-setup.js';
import { burnInScripted, type ScriptedTest } from '../support/burn-in-flows.js';
import { nextWindow } from '../support/totp-moves.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { runPlaywrightSpec } from '../support/playwright-runner.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import type { Stack } from '../support/worker-context.js';

// Items 7-9 of issue 21 on the real stack: a TOTP 2FA sign-in, an environment behind basic auth + a bypass header +
// a consent cookie, and API-call steps that seed data the UI then shows. Burned in through the API with the
// scripted model, replayed with no LLM call, exported and run under @playwright/test, and failed when wrong.

const notesGoal = 'Seed a note through the API and see it in the notes list';
const notesMoves: AgentMove[] = [
  () =>
    tool('http_request', {
      method: 'POST',
      url: '/preview/api/notes',
      body: '{"title":"Buy oat milk"}',
      expectStatus: 201,
      expectJson: [{ path: '$.note.title', equals: 'Buy oat milk' }],
      save: [{ name: 'NOTE_ID', path: '$.note.id' }],
      description: 'Create a note over the API',
    }),
  () =>
    tool('http_request', {
      method: 'GET',
      url: '/preview/api/notes/{{NOTE_ID}}',
      expectJson: [{ path: '$.note.id', equals: '{{NOTE_ID}}' }],
      description: 'Read the note back',
    }),
  (r) => tool('click', { ref: refOf(r, 'link "Notes"'), description: 'Open the notes' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'listitem'), description: 'The seeded note is listed' }),
  () => tool('assert_text', { text: 'Buy oat milk', description: 'The note shows its title' }),
  () => tool('done', { summary: 'Seeded and shown' }),
];

describe('auth toolkit: TOTP, environment access, API-call steps', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  const router = createRouter();
  let totpId: string;
  let notesId: string;
  let previewApp: string;
  let previewEnv: string;

  const rig = useModelStack();
  beforeAll(() => ({ fixture, llm, stack } = rig));

  async function burnIn(test: ScriptedTest) {
    // The verifying replay of a TOTP sign-in first waits (up to a period, 5 s here) for a code the burn-in did not type.
    const generated = await burnInScripted(stack, llm, router, test, 100_000);
    expect(generated.generationStatus).toBe('COMPLETED');
    return generated;
  }
  const replay = (testCaseId: string, tag: string) =>
    stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId,
      artifactPrefix: `runs/${tag}/${testCaseId}`,
    });
  const setSteps = (id: string, steps: Step[]) =>
    stack.db
      .updateTable('test_cases')
      .set({ steps: JSON.stringify(steps) })
      .where('id', '=', id)
      .execute();
  const exportSpec = async (id: string) => {
    const res = await stack.app.request(`/v1/test-cases/${id}/playwright`, {
      headers: { authorization: `Bearer ${stack.tenant.token}` },
    });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('burns in a TOTP 2FA sign-in; the model sees {{AUTH_TOTP}}, never the seed or a code', async () => {
    const { configs, test } = await addTotpSignIn(stack, fixture.url);
    expect(configs[2]).toMatchObject({ type: 'totp', isSecret: true, value: null });
    const generated = await burnIn(test);
    totpId = generated.id;
    expect(generated.steps.steps[3]).toMatchObject({ action: 'fill', value: '{{AUTH_TOTP}}' });
    // The burn-in's code, then the verifying replay's: the next one, since the fixture refuses a code used twice.
    const [code, verifying] = fixture.auth.acceptedCodes();
    expect(code).toMatch(/^\d{6}$/);
    expect(verifying).toMatch(/^\d{6}$/);
    expect(verifying).not.toBe(code);
    expect(generated.recordingCheck).toMatchObject({ status: 'PASSED', attempts: 1 });
    const seen = JSON.stringify(llm.requests);
    for (const secret of [totpAccount.seed, totpAccount.password, code!]) expect(seen).not.toContain(secret);
    // The code field was filled when the model looked next: it saw the reference in its place.
    expect(llm.requests.some((r) => /textbox "Authentication code"[^\n]*\{\{AUTH_TOTP\}\}/.test(lastPrompt(r)))).toBe(
      true,
    );
  }, 130_000);

  it('replays twice with no LLM call, typing a fresh code each time (the fixture refuses a reused one)', async () => {
    const calls = llm.requests.length;
    for (const tag of ['totp-1', 'totp-2']) {
      await nextWindow();
      const result = await replay(totpId, tag);
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('PASSED');
    }
    expect(llm.requests.length).toBe(calls);
    // The burn-in's, its verifying replay's and these two.
    const accepted = fixture.auth.acceptedCodes();
    expect(accepted).toHaveLength(4);
    expect(new Set(accepted).size).toBe(4);
  }, 60_000);

  it("fails the replay when the seed is wrong: the code typed is not the account's", async () => {
    const config = (await stack.call('GET', '/v1/configs')).body.configs.find(
      (c: { name: string }) => c.name === 'AUTH_TOTP',
    );
    await stack.call('PATCH', `/v1/configs/${config.shortId}`, { value: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' });
    try {
      const result = await replay(totpId, 'totp-wrong');
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(5);
      expect(result.error).toContain('Signed in with two-factor authentication');
      expect(fixture.auth.rejectedCodes().length).toBeGreaterThan(0);
    } finally {
      await stack.call('PATCH', `/v1/configs/${config.shortId}`, { value: totpAccount.uri });
    }
  }, 60_000);

  it('exports a spec that computes the code from the seed in its environment and passes', async () => {
    const spec = await exportSpec(totpId);
    expect(spec).toContain("get AUTH_TOTP() { return totp(process.env.AUTH_TOTP ?? ''); }");
    expect(spec).not.toContain(totpAccount.seed);
    await nextWindow();
    const result = await runPlaywrightSpec(spec, { AUTH_TOTP: totpAccount.uri, AUTH_PASSWORD: totpAccount.password });
    expect(result.output).toMatch(/1 passed/);
    expect(result.code).toBe(0);
    expect(fixture.auth.acceptedCodes()).toHaveLength(5);
  }, 120_000);

  it('burns in API-call steps on an environment behind basic auth, a bypass header and a consent cookie', async () => {
    ({ appShortId: previewApp, envShortId: previewEnv } = await addProtectedPreview(stack, fixture.url));
    const generated = await burnIn({
      name: 'Seed a note',
      goal: notesGoal,
      moves: notesMoves,
      applicationShortId: previewApp,
      extra: { configShortIds: [] },
    });
    notesId = generated.id;
    const steps = generated.steps.steps;
    expect(steps.map((s: Step) => s.action)).toEqual([
      'http_request',
      'http_request',
      'click',
      'assert_visible',
      'assert_text',
    ]);
    expect(steps[0].http).toEqual({
      method: 'POST',
      url: '/preview/api/notes',
      body: '{"title":"Buy oat milk"}',
      status: 201,
      json: [{ path: '$.note.title', equals: 'Buy oat milk' }],
      save: [{ name: 'NOTE_ID', path: '$.note.id' }],
    });
    expect(steps[1].http.url).toBe('/preview/api/notes/{{NOTE_ID}}');
    expect(lastPrompt(llm.requests.at(-1)!)).toContain('1. http_request POST /preview/api/notes (saved {{NOTE_ID}}) ✓');
    // The first page the model saw was the protected one, and none of the access secrets reached it.
    expect(lastPrompt(llm.requests.at(-6)!)).toContain('Preview deployment');
    const seen = JSON.stringify(llm.requests);
    for (const secret of [previewAccess.password, previewAccess.token]) expect(seen).not.toContain(secret);
    // One note from the burn-in and one from its verifying replay, which runs the steps as every run does.
    expect(fixture.auth.notes()).toHaveLength(2);
  }, 90_000);

  it('replays the API-call steps with no LLM call, and exports a spec that passes', async () => {
    const calls = llm.requests.length;
    const result = await replay(notesId, 'notes-1');
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('PASSED');
    expect(llm.requests.length).toBe(calls);
    expect(fixture.auth.notes()).toHaveLength(3);

    const spec = await exportSpec(notesId);
    expect(spec).toContain('page.request.fetch');
    expect(spec).toContain("httpCredentials: { username: 'qa', password: process.env.HTTP_PASSWORD ?? '' }");
    for (const secret of [previewAccess.password, previewAccess.token]) expect(spec).not.toContain(secret);
    const run = await runPlaywrightSpec(spec, {
      HTTP_PASSWORD: previewAccess.password,
      HEADER_X_PREVIEW_BYPASS: previewAccess.token,
    });
    expect(run.output).toMatch(/1 passed/);
    expect(run.code).toBe(0);
    expect(fixture.auth.notes()).toHaveLength(4);
  }, 120_000);

  // The metadata address answers 403 from the egress proxy's SSRF guard: the step's request took the browser's path.
  it('fails an API-call step on a wrong status, a wrong JSON value, and a blocked address', async () => {
    const recorded = (await stack.call('GET', `/v1/test-cases/${notesId}`)).body.steps.steps as Step[];
    const variants: Array<[string, Step[], RegExp]> = [
      ['status', [{ ...recorded[0]!, http: { ...recorded[0]!.http!, status: 200 } }], /answered 201, expected 200/],
      [
        'json',
        [
          {
            ...recorded[0]!,
            http: { ...recorded[0]!.http!, json: [{ path: '$.note.title', equals: 'Buy soy milk' }] },
          },
        ],
        /\$\.note\.title is "Buy oat milk", expected "Buy soy milk"/,
      ],
      [
        'missing path',
        [{ ...recorded[0]!, http: { ...recorded[0]!.http!, json: [{ path: '$.note.owner', equals: 'ada' }] } }],
        /has no \$\.note\.owner/,
      ],
      [
        'ssrf',
        [
          {
            action: 'http_request',
            http: { method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' },
            description: 'Read cloud metadata',
          },
        ],
        /GET \/latest\/meta-data\/ answered 403/,
      ],
    ];
    try {
      for (const [what, steps, message] of variants) {
        await setSteps(notesId, steps);
        const result = await replay(notesId, `notes-${what.replace(' ', '-')}`);
        expect(result.status, what).toBe('FAILED');
        expect(result.failedStepIndex, what).toBe(0);
        expect(result.error, what).toMatch(message);
      }
    } finally {
      await setSteps(notesId, recorded);
    }
  }, 90_000);

  it('fails the replay when the environment loses its bypass header (the preview answers 403)', async () => {
    const path = `/v1/applications/${previewApp}/environments/${previewEnv}`;
    expect((await stack.call('PATCH', path, { access: { headers: [] } })).status).toBe(200);
    try {
      const result = await replay(notesId, 'notes-no-header');
      expect(result.status).toBe('FAILED');
      expect(result.error).toMatch(/403/);
    } finally {
      await stack.call('PATCH', path, {
        access: { headers: [{ name: previewAccess.header, value: previewAccess.token, isSecret: true }] },
      });
    }
  }, 60_000);
});
