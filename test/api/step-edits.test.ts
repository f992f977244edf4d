import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { addShopWithLogin } from '../support/recorded.js';

// PUT /v1/test-cases/{id}/steps: a person's corrections saved as the next steps version, through the service the
// dashboard's step editor uses. A refused edit names the step and field and changes nothing.

describe('editing steps through the API', () => {
  let api: ApiContext;
  let testCaseId: string;
  beforeAll(async () => {
    api = await createApiContext('postgres');
    ({ testCaseId } = await addShopWithLogin(api));
  });
  afterAll(async () => api?.close());

  const steps = async () =>
    (await api.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps as { version: number; steps: Step[] };
  const edit = (body: unknown, token?: string) => api.call('PUT', `/v1/test-cases/${testCaseId}/steps`, body, token);

  it('saves an edited expectation, a deletion and a reorder as the next version', async () => {
    const before = await steps();
    const last = before.steps.length - 1;
    const changed = before.steps.map((s, i) =>
      i === last && s.value !== undefined ? { ...s, value: `${s.value} (edited)` } : s,
    );
    const reordered = [changed[0]!, ...changed.slice(1, last).reverse(), changed[last]!].filter((_, i) => i !== 1);
    expect(await edit({ basedOnVersion: before.version, steps: reordered })).toMatchObject({
      status: 200,
      body: { version: before.version + 1 },
    });
    expect(await steps()).toEqual({ version: before.version + 1, steps: reordered });
  });

  it.each([
    [
      'a locator replay cannot parse',
      (s: Step[]) => s.map((x, i) => (i === 1 ? { ...x, locator: "getByRole('textbox', { name: " } : x)),
      /step 2 locator: not a locator Proctor can replay/,
    ],
    [
      'an emptied assertion value',
      (s: Step[]) => s.map((x) => (x.action === 'assert_text' || x.action === 'fill' ? { ...x, value: '' } : x)),
      /needs a value/,
    ],
    [
      'an element step without a locator',
      (s: Step[]) => s.map((x, i) => (i === 1 ? { ...x, locator: undefined } : x)),
      /step 2 locator: this \w+ step needs a locator/,
    ],
    [
      'an empty description',
      (s: Step[]) => s.map((x, i) => (i === 0 ? { ...x, description: '  ' } : x)),
      /step 1 description/,
    ],
    ['no steps at all', () => [], /./],
    ['an unknown action', (s: Step[]) => s.map((x, i) => (i === 0 ? { ...x, action: 'teleport' } : x)), /./],
  ] as [string, (s: Step[]) => unknown[], RegExp][])(
    'refuses %s with a 400 that says where, and changes nothing',
    async (_, change, message) => {
      const before = await steps();
      const res = await edit({ basedOnVersion: before.version, steps: change(before.steps) });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await steps()).toEqual(before);
    },
  );

  it("keeps a mail step's settings (subject, timeout, what it expects, its code shape) through an edit; refuses a malformed shape", async () => {
    const before = await steps();
    const mailSteps: Step[] = [
      ...before.steps,
      {
        action: 'wait_for_email',
        value: '{{INBOX}}',
        email: {
          subject: 'Sign-In Code',
          from: 'acme',
          timeoutMs: 5000,
          linkPattern: '/confirm',
          expects: ['code', 'link'],
          codeShape: 'AAAA-AAAA',
        },
        description: 'Wait for the code',
      },
    ];
    expect((await edit({ basedOnVersion: before.version, steps: mailSteps })).status).toBe(200);
    const saved = await steps();
    expect(saved.steps.at(-1)).toEqual(mailSteps.at(-1));
    const malformed = saved.steps.map((x) =>
      x.action === 'wait_for_email' ? { ...x, email: { ...x.email, codeShape: 'CNSV-HCXK' } } : x,
    );
    const res = await edit({ basedOnVersion: saved.version, steps: malformed });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/code shape/);
    expect(await steps()).toEqual(saved);
  });

  it("a stale version is a 409 and keeps the newer steps; unknown, malformed and other projects' ids are refused", async () => {
    const before = await steps();
    const res = await edit({ basedOnVersion: before.version - 1, steps: before.steps });
    expect(res).toMatchObject({ status: 409, body: { message: expect.stringMatching(/changed since/) } });
    expect(await steps()).toEqual(before);
    expect((await edit({ basedOnVersion: before.version, steps: before.steps }, api.other.token)).status).toBe(404);
    expect((await edit({ steps: before.steps })).status).toBe(400);
    expect((await edit({ basedOnVersion: 2 ** 31, steps: before.steps })).status).toBe(400);
    expect(
      await api.call('PUT', '/v1/test-cases/3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b/steps', {
        basedOnVersion: 1,
        steps: before.steps,
      }),
    ).toMatchObject({ status: 404, body: { message: expect.any(String) } });
    expect(
      await api.call('PUT', '/v1/test-cases/not-a-uuid/steps', { basedOnVersion: 1, steps: before.steps }),
    ).toMatchObject({ status: 400, body: { message: expect.stringMatching(/testCaseId/) } });
    expect(await steps()).toEqual(before);
  });
});
