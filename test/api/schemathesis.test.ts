import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrograms } from '../../src/programs.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';

// Fixed, so a failure reproduces: `schemathesis run … --seed 20261123` with the printed options.
const SEED = 20261123;
// Per operation in the fuzzing phase (valid and invalid requests). The whole run took 45 s on two cores shared
// with other work, 117 s at a load of ~20.
const MAX_EXAMPLES = 8;
// A guard against a hang, not a time target. In `npm test` it shares its first minutes with the trust matrix and
// the fault matrix and takes 200 to 220 s; with a second suite's work on the machine beside it, it passed 360 s.
const TIMEOUT_MS = 900_000;

function runSchemathesis(
  executable: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd, env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// Operations whose documented inputs can still be refused by a rule no schema pattern states: there, a 400 (or the
// 409 of a duplicate) to a request that matches the document is no failure; every other check applies as usual.
const ruleRefusals = (
  [
    // A cron range must end after it starts ("1-5", not "5-1"), a rule no pattern can state.
    ['POST', '/v1/test-plans/{testPlanShortId}/schedules'],
    // A plan lists each application at most once: JSON Schema's uniqueItems compares whole entries, so two entries
    // for one application with different environments match the document and are still a 400.
    ['POST', '/v1/test-plans'],
    ['PATCH', '/v1/test-plans/{testPlanShortId}'],
    // A GitHub App's private key must parse as an RSA key in PEM, which no pattern can state; one integration per
    // provider per project makes a second create a 409; switching auth needs the new credentials in the same PATCH.
    ['POST', '/v1/git-integrations'],
    ['PATCH', '/v1/git-integrations/{integrationShortId}'],
    // A day must exist in the calendar (2026-02-30 matches the pattern), from 1970 on, not after "to", and the range
    // at most 366 days: rules between two parameters and of the calendar, which no pattern states.
    ['GET', '/v1/usage'],
  ] as const
)
  .map(
    ([method, path]) => `[[operations]]
include-path = "${path}"
include-method = "${method}"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409"]
`,
  )
  .join('\n');

const schemathesisConfig = `
[generation]
# The API refuses U+0000 anywhere in a request with a 400 naming the field (test/api/hardening.test.ts). The
# document says so for keys and unknown fields (NulFreeJson) and in its description, but not as a second
# pattern on every declared string, so the generator is told here; otherwise each NUL would count as
# "valid data rejected".
allow-x00 = false
# Keep hypothesis' example database out of the working tree.
database = "none"

[phases.stateful.inference]
# Links between operations are inferred from the responses' ids (a created test case's id feeds its steps routes).
algorithms = ["location-headers", "dependency-analysis"]

[phases.coverage.generation]
# The coverage phase makes every boundary case the schema defines, whatever --max-examples says: with negative
# cases too it was ~2,000 requests and most of the run time. Its positive cases (every documented boundary
# accepted) stay; invalid requests are still sent by the fuzzing phase, which runs in both modes.
mode = "positive"

${ruleRefusals}
`;

/**
 * Real ids for the path parameters that name rows, so the fuzzing phases reach past the 404 of a random id into
 * what the route does with its other inputs (a steps version beyond an integer column once answered 500 there).
 */
function realIds(ids: Record<string, string>): string {
  const table = (values: Record<string, string>) =>
    Object.entries(values)
      .map(([name, value]) => `${name} = ${JSON.stringify(value)}`)
      .join('\n');
  // A DELETE on them would take the rows from every later request: deletes get ids of rows that never existed.
  const gone = Object.fromEntries(
    Object.entries(ids).map(([name, value]) => [
      name,
      name === 'testCaseId' ? '00000000-0000-4000-8000-000000000000' : `${value.split('_')[0]}_gone00000000`,
    ]),
  );
  return `\n[[operations]]\ninclude-method = "DELETE"\n[operations.parameters]\n${table(gone)}\n\n[parameters]\n${table(ids)}\n`;
}

/**
 * Property-based fuzzing of the served OpenAPI document against the real API (Postgres, a real token, the
 * Temporal dev server of the test stack, so routes that start workflows start them; no worker runs them,
 * and no check needs one). Every check is on: a 5xx, a response outside its declared schema, an undeclared
 * status code, or a request that breaks the schema being accepted fails the test.
 */
describe('schemathesis over /v1/openapi.json (postgres)', () => {
  let ctx: ApiContext;
  let served: ServedApp;
  let workDir: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    ctx = await createApiContext('postgres');
    served = await serveOverHttp(ctx.app);
    // Some real rows, so list and get responses are checked with content, not only empty lists.
    const app = await ctx.call('POST', '/v1/applications', { name: 'Shop' });
    const env = await ctx.call('POST', `/v1/applications/${app.body.shortId}/environments`, {
      name: 'Staging',
      url: 'https://staging.shop.example.com',
    });
    expect(env.status).toBe(201);
    // The default plan has an enabled test, so a schema-valid `POST /v1/run` starts a run (its workflow waits
    // on a task queue no worker polls) instead of a 400 for an empty plan.
    const testCase = await ctx.call('POST', '/v1/test-cases', {
      applicationShortId: app.body.shortId,
      name: 'Checkout',
      goal: 'Buy a cup',
    });
    expect(testCase.status).toBe(200);
    await ctx.db
      .updateTable('test_cases')
      .set({ is_enabled: true })
      .where('id', '=', testCase.body.testCase.id)
      .execute();
    const plan = await ctx.call('POST', '/v1/test-plans', {
      name: 'Smoke',
      testCaseIds: [testCase.body.testCase.id],
      isDefault: true,
    });
    expect(plan.status).toBe(201);
    ids = {
      applicationShortId: app.body.shortId,
      environmentShortId: env.body.shortId,
      testCaseId: testCase.body.testCase.id,
      testPlanShortId: plan.body.shortId,
    };
    // Schemathesis keeps its example database in the working directory: not in the repository.
    workDir = mkdtempSync(join(tmpdir(), 'proctor-schemathesis-'));
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('finds no server error, schema violation or undeclared status', { timeout: TIMEOUT_MS }, async () => {
    const executable = loadPrograms().schemathesis;
    if (!executable)
      throw new Error('schemathesis is not installed: run `npm run setup:test` (pip install schemathesis)');
    const configFile = join(workDir, 'schemathesis.toml');
    writeFileSync(configFile, schemathesisConfig + realIds(ids));
    const args = [
      '--config-file',
      configFile,
      'run',
      `${served.url}/v1/openapi.json`,
      '--url',
      served.url,
      '--header',
      `Authorization: Bearer ${ctx.tenant.token}`,
      '--checks',
      'all',
      '--seed',
      String(SEED),
      // Every phase, the stateful one included: it chains calls through the links it infers from the responses.
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--max-examples',
      String(MAX_EXAMPLES),
      '--workers',
      '1',
      '--request-timeout',
      '20',
      '--no-shrink',
      '--output-truncate',
      'false',
    ];
    const { code, output } = await runSchemathesis(executable, args, workDir);
    expect(code, output).toBe(0);
    expect(output).toMatch(/No issues found|passed/i);
  });
});
