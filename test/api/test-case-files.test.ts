import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { loadPrograms } from '../../src/programs.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { shopCredentials } from '../support/fixture-apps.js';
import { profileSteps } from '../support/fixtures/quality.js';
import { recordEveryKind } from '../support/kind-examples.js';
import {
  applicationIdOf,
  brokenSteps,
  checkoutSteps,
  insertTestCaseRow,
  loginSteps,
  slowSteps,
  todoSteps,
} from '../support/recorded.js';
import { countRows } from '../support/row-counts.js';
import { rowIdOf } from '../support/row-ids.js';

// A test case as a file, through the API: every recorded test case of the fixture suites (the shop, the todo app,
// the quality page, and a step of every kind of the step registry recorded in Chromium) exports, imports back onto
// itself changing nothing, and imports as a new test case that exports to the same file; a bad file of each kind is
// refused with its line, column and reason, and nothing is stored.

interface Fixture {
  key: string;
  name: string;
  steps: Step[];
  expectedResult?: string;
  labels?: string[];
  configs?: string[];
  scenario?: boolean;
  resumeFrom?: string;
  waitFor?: string[];
}

const secretValue = 'pw-s3cret-value';

describe('test cases as files', () => {
  let api: ApiContext;
  const ids = new Map<string, string>();
  const cfg = new Map<string, string>();
  let appShortId: string;
  let otherAppShortId = '';
  let scenarioShortId: string;

  const exportFile = async (id: string) => {
    const res = await api.call('GET', `/v1/test-cases/${id}/file`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { fileName: string; file: string };
  };
  const importFile = (file: string) => api.call('POST', '/v1/test-cases/file', { file });
  const row = async (id: string) =>
    api.db.selectFrom('test_cases').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    api = await createApiContext('postgres');
    appShortId = (await api.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' })).body.shortId;
    otherAppShortId = (await api.call('POST', '/v1/applications', { name: 'Admin', kind: 'web' })).body.shortId;
    for (const [name, value, isSecret] of [
      ['SHOP_EMAIL', shopCredentials.email, false],
      ['SHOP_PASSWORD', secretValue, true],
    ] as const)
      cfg.set(name, (await api.call('POST', '/v1/configs', { name, value, isSecret })).body.shortId);
    scenarioShortId = (
      await api.call('POST', '/v1/scenarios', { name: 'Customer', description: 'A customer', instructions: 'Sign in' })
    ).body.shortId;

    const browser = await chromium.launch({ executablePath: loadPrograms().chromium, args: ['--no-sandbox'] });
    const kindSteps = await recordEveryKind(await browser.newPage());
    await browser.close();

    const fixtures: Fixture[] = [
      {
        key: 'login',
        name: 'Sign in and add the mug',
        steps: loginSteps,
        labels: ['smoke'],
        expectedResult: 'Cart (1)',
      },
      {
        key: 'checkout',
        name: 'Checkout',
        steps: checkoutSteps.map((s) => (s.value === 'Ada Lovelace' ? { ...s, value: '{{SHOP_PASSWORD}}' } : s)),
        labels: ['checkout', 'smoke'],
        expectedResult: 'The order is confirmed',
        configs: ['SHOP_EMAIL', 'SHOP_PASSWORD'],
        scenario: true,
        resumeFrom: 'login',
      },
      { key: 'todo', name: 'Add a todo', steps: todoSteps('Buy "oat" milk: 2 × 1 L # today'), waitFor: ['login'] },
      { key: 'broken', name: 'Archive everything', steps: brokenSteps },
      { key: 'slow', name: 'A slow page', steps: slowSteps },
      { key: 'profile', name: 'Save the profile', steps: profileSteps },
      { key: 'kinds', name: 'A step of every kind', steps: kindSteps, configs: ['SHOP_PASSWORD'] },
    ];
    const applicationId = await applicationIdOf(api.db, appShortId);
    for (const f of fixtures) {
      const id = await insertTestCaseRow(
        api.db,
        { projectId: api.tenant.projectId, applicationId },
        {
          name: f.name,
          goal: `Goal of ${f.name}`,
          expected_result: f.expectedResult ?? null,
          labels: f.labels ?? [],
          config_ids: await Promise.all((f.configs ?? []).map((c) => rowIdOf(api.db, 'configs', cfg.get(c)!))),
          scenario_id: f.scenario ? await rowIdOf(api.db, 'scenarios', scenarioShortId) : null,
          is_enabled: true,
          generation_status: 'COMPLETED',
          steps: JSON.stringify(f.steps),
          steps_version: 3,
          resume_from_test_case_id: f.resumeFrom ? ids.get(f.resumeFrom)! : null,
          wait_for_test_case_ids: (f.waitFor ?? []).map((k) => ids.get(k)!),
          created_at: new Date(),
          updated_at: new Date(),
        },
      );
      ids.set(f.key, id);
    }
  }, 60_000);
  afterAll(async () => api?.close());

  const keys = ['login', 'checkout', 'todo', 'broken', 'slow', 'profile', 'kinds'];

  it.each(keys)(
    '%s: imports back onto itself changing nothing, and as a new test case with the same file',
    async (key) => {
      const id = ids.get(key)!;
      const { file, fileName } = await exportFile(id);
      expect(fileName).toMatch(/^[a-z0-9-]+\.proctor\.yaml$/);
      expect(file).toMatch(
        /^# yaml-language-server: \$schema=http:\/\/127\.0\.0\.1:3000\/schemas\/test-case-file\.json\n/,
      );
      expect(file).not.toContain(secretValue);
      const stored = await row(id);

      const same = await importFile(file);
      expect(same).toMatchObject({ status: 200, body: { id, created: false, changed: [], stepsVersion: 3 } });
      expect(await row(id)).toEqual(stored);

      const copy = await importFile(file.replace(`id: ${id}\n`, ''));
      expect(copy).toMatchObject({ status: 200, body: { created: true, stepsVersion: 1 } });
      const copyId = copy.body.id as string;
      expect((await exportFile(copyId)).file).toBe(file.replace(`id: ${id}\n`, `id: ${copyId}\n`));
      const [a, b] = [
        (await api.call('GET', `/v1/test-cases/${id}`)).body,
        (await api.call('GET', `/v1/test-cases/${copyId}`)).body,
      ];
      const definition = (v: Record<string, any>) => {
        const { id: _i, createdAt: _c, updatedAt: _u, isEnabled: _e, steps, recordingCheck: _r, ...rest } = v;
        return { ...rest, steps: steps.steps };
      };
      expect(definition(b)).toEqual(definition(a));
      expect(b.steps.steps).toEqual(stored.steps);
    },
  );

  it('exports a secret value a step holds as its reference, and an import of that file stores the reference', async () => {
    const applicationId = await applicationIdOf(api.db, appShortId);
    const leaky = loginSteps.map((s) =>
      s.value === shopCredentials.password ? { ...s, value: `${secretValue}!` } : s,
    );
    const id = await insertTestCaseRow(
      api.db,
      { projectId: api.tenant.projectId, applicationId },
      {
        name: 'Leaky',
        config_ids: [await rowIdOf(api.db, 'configs', cfg.get('SHOP_PASSWORD')!)],
        generation_status: 'COMPLETED',
        steps: JSON.stringify(leaky),
        steps_version: 1,
      },
    );
    const { file } = await exportFile(id);
    expect(file).not.toContain(secretValue);
    expect(file).toContain('value: "{{SHOP_PASSWORD}}!"');
    expect(await importFile(file)).toMatchObject({ status: 200, body: { changed: ['steps'], stepsVersion: 2 } });
    expect((await exportFile(id)).file).toBe(file);
  });

  // Each bad file: the base file it starts from, the change, the status, the text on the line the refusal must
  // name (null: a syntax error, whose column YAML places), and the reason.
  type Bad = [string, string, (t: string, ids: Map<string, string>) => string, number, string | null, RegExp];
  const firstLocator = (t: string) => t.replace(/^( {4}locator: ).*$/m, '$1nthChild(3)');
  const bad: Bad[] = [
    [
      'a YAML syntax error',
      'checkout',
      (t) => t.replace('name: Checkout\n', 'name: "Checkout\n'),
      400,
      null,
      /Missing closing "quote/,
    ],
    ['a key given twice', 'checkout', (t) => `${t}goal: again\n`, 400, 'goal: again', /keys must be unique/],
    ['an empty file', 'checkout', () => '', 400, null, /the file is empty/],
    ['two documents', 'checkout', (t) => `${t}---\nformat: 1\n`, 400, null, /multiple documents/],
    [
      'a tag YAML would resolve',
      'checkout',
      (t) => t.replace('goal: ', 'goal: !!js/function '),
      400,
      '!!js',
      /Unresolved tag/,
    ],
    [
      'an alias bomb',
      'checkout',
      () =>
        `a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\n`,
      400,
      null,
      /alias/i,
    ],
    ['a list instead of a test case', 'checkout', () => '- a\n- b\n', 400, '- a', /the file: .*expected object/],
    ['no format', 'checkout', (t) => t.replace('format: 1\n', ''), 400, 'id: ', /format: .*expected 1/],
    [
      'a format version this Proctor does not read',
      'checkout',
      (t) => t.replace('format: 1', 'format: 2'),
      400,
      'format: 2',
      /format: .*expected 1/,
    ],
    ['no name', 'checkout', (t) => t.replace('name: Checkout\n', ''), 400, 'format: 1', /name: .*expected string/],
    [
      'a name over 80 characters',
      'checkout',
      (t) => t.replace('name: Checkout', `name: ${'C'.repeat(81)}`),
      400,
      'name: CC',
      /name: .*80/,
    ],
    [
      'an unknown field',
      'checkout',
      (t) => t.replace('name: Checkout\n', 'name: Checkout\nowner: qa-team\n'),
      400,
      'owner:',
      /owner: unknown field/,
    ],
    [
      'a misspelt step field',
      'checkout',
      (t) => t.replace('    locator:', '    locatr:'),
      400,
      'locatr:',
      /steps\[0\]\.locatr: unknown field/,
    ],
    [
      'an action Proctor does not have',
      'checkout',
      (t) => t.replace('action: click', 'action: teleport'),
      400,
      'teleport',
      /steps\[0\]\.action: .*expected one of/,
    ],
    [
      'a locator replay cannot parse',
      'checkout',
      firstLocator,
      400,
      'nthChild(3)',
      /steps\[0\]\.locator: not a locator Proctor can replay/,
    ],
    [
      'a click without its locator',
      'checkout',
      (t) => t.replace(/^ {4}locator: .*\n/m, ''),
      400,
      '- action: click',
      /steps\[0\]\.locator: this click step needs a locator/,
    ],
    [
      'a fill with an empty value',
      'checkout',
      (t) => t.replace('value: 12 Analytical St', 'value: ""'),
      400,
      'value: ""',
      /needs a value/,
    ],
    [
      'a value YAML reads as a number',
      'checkout',
      (t) => t.replace('value: 12 Analytical St', 'value: 0123'),
      400,
      'value: 0123',
      /value: .*expected string, received number/,
    ],
    ['no steps', 'checkout', (t) => t.slice(0, t.indexOf('steps:')) + 'steps: []\n', 400, 'steps: []', /steps: .*>=1/],
    [
      'a label with a comma',
      'checkout',
      (t) => t.replace('  - checkout', '  - check,out'),
      400,
      'check,out',
      /labels\[0\]: must not contain a comma/,
    ],
    [
      'an application the project does not have',
      'checkout',
      (t) => t.replace(/application: .*/, 'application: app_nope'),
      404,
      'app_nope',
      /application: Application not found/,
    ],
    [
      'a config the project does not have',
      'checkout',
      (t) => t.replace(/ {2}- cfg_.*/, '  - cfg_nope'),
      404,
      'cfg_nope',
      /configs\.0: Config not found/,
    ],
    [
      'a scenario the project does not have',
      'checkout',
      (t) => t.replace(/scenario: .*/, 'scenario: scenario_nope'),
      404,
      'scenario_nope',
      /scenario: Scenario not found/,
    ],
    [
      'an id of no test case of the project',
      'checkout',
      (t) => t.replace(/^id: .*$/m, 'id: 3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b'),
      404,
      'id: 3f2b',
      /id: Test case not found/,
    ],
    [
      'a move to another application',
      'checkout',
      (t) => t.replace(/application: .*/, `application: ${otherAppShortId}`),
      400,
      `application: ${otherAppShortId}`,
      /cannot move to another application/,
    ],
    [
      'a dependency on itself',
      'checkout',
      (t, i) => t.replace(/resumeFrom: .*/, `resumeFrom: ${i.get('checkout')}`),
      400,
      'resumeFrom:',
      /dependencies\.resumeFrom: a test case cannot depend on itself/,
    ],
    [
      'a dependency cycle',
      'login',
      (t, i) => t.replace('steps:\n', `dependencies:\n  waitFor:\n    - ${i.get('checkout')}\nsteps:\n`),
      400,
      'dependencies:',
      /Dependency cycle/,
    ],
    [
      'a dependency on no test case of the project',
      'todo',
      (t) => t.replace(/^ {4}- [0-9a-f-]{36}$/m, '    - 3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b'),
      404,
      '- 3f2b8c1e',
      /dependencies\.waitFor\.0: Test case not found/,
    ],
    [
      'a secret spelled out',
      'checkout',
      (t) => t.replace('"{{SHOP_PASSWORD}}"', secretValue),
      400,
      secretValue,
      /holds the value of the secret config SHOP_PASSWORD: write \{\{SHOP_PASSWORD\}\}/,
    ],
  ];

  it(`refuses ${bad.length} kinds of bad file with the line, column and reason, storing nothing`, async () => {
    const files = new Map([
      ['checkout', (await exportFile(ids.get('checkout')!)).file],
      ['login', (await exportFile(ids.get('login')!)).file],
      ['todo', (await exportFile(ids.get('todo')!)).file],
    ]);
    const counts = async () => ({
      testCases: await countRows(api.db, 'test_cases', api.tenant.projectId),
      audit: await countRows(api.db, 'audit_events', api.tenant.projectId),
      checkout: await row(ids.get('checkout')!),
      login: await row(ids.get('login')!),
      todo: await row(ids.get('todo')!),
    });
    const before = await counts();
    for (const [what, base, change, status, anchor, reason] of bad) {
      const text = change(files.get(base)!, ids);
      expect(text, what).not.toBe(files.get(base));
      const res = await importFile(text);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(status);
      const message = res.body.message as string;
      expect(message, what).toMatch(/^line \d+, column \d+: /);
      expect(message, what).toMatch(reason);
      if (anchor !== null) {
        const line = text.slice(0, text.indexOf(anchor)).split('\n').length;
        expect(message, what).toMatch(new RegExp(`^line ${line}, column \\d+: `));
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('serves the JSON Schema without a token', async () => {
    const res = await api.call('GET', '/schemas/test-case-file.json', undefined, null);
    expect(res.status).toBe(200);
    expect(res.body.properties.steps.items.properties.locator).toEqual({ type: 'string' });
  });

  it('answers 404 for a test case of another project, and 409 before steps are recorded', async () => {
    const applicationId = await applicationIdOf(api.db, appShortId);
    const pending = await insertTestCaseRow(
      api.db,
      { projectId: api.tenant.projectId, applicationId },
      { name: 'Pending' },
    );
    expect((await api.call('GET', `/v1/test-cases/${pending}/file`)).status).toBe(409);
    expect((await api.call('GET', `/v1/test-cases/${ids.get('login')}/file`, undefined, api.other.token)).status).toBe(
      404,
    );
  });
});
