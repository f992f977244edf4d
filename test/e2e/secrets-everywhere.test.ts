import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { createLogger } from '../../src/logger.js';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { dumpDatabase, leaksIn, readAllBlobs, recordingKeys, textsOf } from '../support/at-rest-scan.js';
import { previewAccess, totpAccount } from '../support/fixtures/auth-toolkit.js';
import { addProtectedPreview, addTotpSignIn } from '../support/auth-toolkit-setup.js';
import { burnInScripted, type ScriptedTest } from '../support/burn-in-flows.js';
import { nextWindow } from '../support/totp-moves.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { minioBucket, startInstalledMinio, type MinioServer } from '../support/minio.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';

// Every kind of secret through a whole life: stored through the API, burned in by the model, replayed, run as a plan
// (traces, a failure screenshot, a browser state kept), with the API and worker on MinIO and their logs kept. Then
// the database (every table), the bucket (every object, archives unpacked) and the logs hold none of them, in clear,
// base64 or hex.

const notesGoal = 'Open the protected preview and its notes';
const notesMoves: AgentMove[] = [
  (r) => tool('click', { ref: refOf(r, 'link "Notes"'), description: 'Open the notes' }),
  () => tool('assert_text', { text: 'Notes', description: 'The notes page shows' }),
  () => tool('done', { summary: 'Notes shown' }),
];

describe('no secret at rest or in the logs after a burn-in, replays and a run', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let minio: MinioServer;
  let stack: Stack;
  let blobs: ReturnType<typeof recordingKeys>;
  const logLines: string[] = [];
  /** What the process wrote to stdout/stderr meanwhile: the Temporal worker's own log (activity and workflow failures). */
  const processOutput: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const originalWrites = streams.map((s) => s.write);
  const router = createRouter();
  const secrets = {
    secretConfig: totpAccount.password,
    totpSeed: totpAccount.seed,
    totpUri: totpAccount.uri,
    basicAuthPassword: previewAccess.password,
    basicAuthHeader: `${previewAccess.username}:${previewAccess.password}`,
    bypassHeader: previewAccess.token,
    gitlabToken: `glpat-${randomUUID()}`,
    gitlabWebhookSecret: `glwh-${randomUUID()}`,
    githubWebhookSecret: `whsec-${randomUUID()}`,
    // A body line of the private key: any of it in clear leaks the key.
    githubPrivateKey: '',
  };
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString();
  secrets.githubPrivateKey = privateKey.split('\n')[5]!;

  beforeAll(async () => {
    [fixture, llm, minio] = await Promise.all([startFixtureApps(), startScriptedLlm(), startInstalledMinio()]);
    streams.forEach((stream, i) => {
      const original = originalWrites[i]!;
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        processOutput.push(Buffer.from(chunk).toString('utf8'));
        return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
      }) as typeof stream.write;
    });
    blobs = recordingKeys(createS3BlobStore(minioBucket(minio, 'proctor-secrets')));
    await blobs.store.ensureReady();
    stack = await startStack({
      llm,
      blobs: blobs.store,
      logger: createLogger('debug', {}, (line) => logLines.push(line)),
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    streams.forEach((stream, i) => (stream.write = originalWrites[i]!));
    await Promise.all([fixture?.stop(), llm?.stop(), minio?.stop()]);
  });

  const burnIn = async (test: ScriptedTest) => (await burnInScripted(stack, llm, router, test)).id as string;

  it('stores, burns in, replays and runs with every kind of secret; none is in the database, the bucket or the logs', async () => {
    const created = async (path: string, body: unknown) => {
      const res = await stack.call('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    // Git integrations: a GitLab token and webhook secret, a GitHub App private key and webhook secret.
    await created('/v1/git-integrations', {
      provider: 'gitlab',
      token: secrets.gitlabToken,
      webhookSecret: secrets.gitlabWebhookSecret,
    });
    await created('/v1/git-integrations', {
      provider: 'github',
      auth: 'app',
      appId: 123456,
      privateKey,
      webhookSecret: secrets.githubWebhookSecret,
    });

    // A secret config and a TOTP seed, typed by a burn-in and two replays (the second keeps its browser state).
    const totpId = await burnIn((await addTotpSignIn(stack, fixture.url)).test);
    await nextWindow();
    const { projectId } = stack.tenant;
    const replayed = await stack.activities.executeTest({
      projectId,
      testCaseId: totpId,
      artifactPrefix: `runs/replay/${totpId}`,
      captureStateKey: `runs/replay/state/${totpId}.json`,
    });
    expect(replayed).toMatchObject({ status: 'PASSED', stateKey: `runs/replay/state/${totpId}.json` });

    // Environment credentials (basic auth, a secret bypass header), burned in, run as a plan, and failed once.
    const preview = await addProtectedPreview(stack, fixture.url);
    const notesId = await burnIn({
      name: 'Preview notes',
      goal: notesGoal,
      moves: notesMoves,
      applicationShortId: preview.appShortId,
      extra: { configShortIds: [] },
    });
    expect((await stack.call('PATCH', `/v1/test-cases/${notesId}`, { isEnabled: true })).status).toBe(200);
    const plan = await created('/v1/test-plans', {
      name: 'Preview',
      testCaseIds: [notesId],
      applications: [{ applicationShortId: preview.appShortId, environmentShortId: preview.envShortId }],
    });
    const started = await created('/v1/run', { testPlanShortId: plan.shortId });
    const run = await waitForRun(stack, started.run.shortId);
    expect(run.runTestCases.map((t: { result: string }) => t.result)).toEqual(['PASSED']);
    const recorded = (await stack.call('GET', `/v1/test-cases/${notesId}`)).body.steps.steps as Step[];
    await stack.db
      .updateTable('test_cases')
      .set({
        steps: JSON.stringify([
          ...recorded,
          { action: 'assert_text', value: 'No such note', description: 'A note that is not there' },
        ]),
      })
      .where('id', '=', notesId)
      .execute();
    const failed = await stack.activities.executeTest({
      projectId,
      testCaseId: notesId,
      artifactPrefix: `runs/failed/${notesId}`,
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.screenshotKey).toBe(`runs/failed/${notesId}/failure.png`);

    // The database: every table, as a dump would hold it.
    const dump = await dumpDatabase(stack.db);
    expect(dump.tables).toEqual(
      expect.arrayContaining([
        'configs',
        'git_integrations',
        'environments',
        'test_cases',
        'runs',
        'audit_events',
        'data_keys',
      ]),
    );
    expect(dump.text).toContain(totpAccount.email); // the dump reads the rows the secrets sit next to
    expect(leaksIn(dump.text, secrets)).toEqual([]);

    // The bucket: every object, traces and archives unpacked.
    const bucket = await readAllBlobs(blobs.store, blobs.keys);
    expect(bucket.keys).toEqual(
      expect.arrayContaining([
        replayed.traceKey,
        replayed.stateKey,
        failed.traceKey,
        failed.screenshotKey,
        ...run.runTestCases.map(() => expect.stringContaining('trace.zip')),
      ]),
    );
    expect(bucket.texts.filter((t) => t.name.includes('trace.zip!')).length).toBeGreaterThan(10);
    expect(bucket.texts.some((t) => t.name.includes(`state/${totpId}.json`) && t.text.includes('cookies'))).toBe(true);
    // The typed values are in the traces (a plain one stays readable), so a secret left unredacted would be found.
    expect(bucket.texts.some((t) => t.name.includes('trace.zip!') && t.text.includes(totpAccount.email))).toBe(true);
    const leaks = bucket.texts.flatMap((t) => leaksIn(t.text, secrets).map((secret) => `${secret} in ${t.name}`));
    expect(leaks).toEqual([]);

    // The logs of the API and the worker: Proctor's own (debug level) and the Temporal worker's (the process output).
    const logs = [...logLines, ...processOutput].join('\n');
    expect(logs).toContain('Worker state changed'); // the capture hears the worker
    expect(leaksIn(logs, secrets)).toEqual([]);
  }, 240_000);

  it('finds each secret when it is there: in clear, base64 at any alignment, inside a zip or a gzip', () => {
    for (const [name, secret] of Object.entries(secrets)) {
      expect(leaksIn(`{"v":"${secret}"}`, secrets), name).toContain(name);
      for (const pad of ['', 'x', 'xy'])
        expect(leaksIn(`Basic ${Buffer.from(`${pad}${secret}!`).toString('base64')}`, secrets), name).toContain(name);
      const zip = zipSync({
        'trace.trace': strToU8(`{"value":"${secret}"}`),
        'nested.zip': zipSync({ 'a.json': gzipSync(`{"v":"${secret}"}`) }),
      });
      const texts = textsOf('t.zip', zip);
      expect(texts.map((t) => t.name)).toEqual(['t.zip!trace.trace', 't.zip!nested.zip!a.json!gunzip']);
      for (const t of texts) expect(leaksIn(t.text, secrets), `${name} in ${t.name}`).toContain(name);
    }
  });
});
