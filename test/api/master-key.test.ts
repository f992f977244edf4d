import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Keyring, loadMasterKey, masterKeyFile, resetKeyring } from '../../src/db/secrets.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { silentLogger } from '../../src/logger.js';
import { createActivityDeps } from '../../src/worker/worker.js';
import { createApiContext, freshDatabase, type ApiContext } from '../support/app-context.js';
import { proctorArgs } from '../support/proctor-cli.js';

// The master key as an operator meets it: production processes refuse to start without one, dev makes its own, and a
// wrong key is named as such (API: a 500 with a readable message; activities: a failure Temporal does not retry).

const production = {
  DATABASE_URL: 'postgres://u@db/p',
  TEMPORAL_ADDRESS: 'temporal:7233',
  PROCTOR_BLOB_SECRET: 'x'.repeat(32),
};

describe('PROCTOR_MASTER_KEY at start-up', () => {
  it.each(['api', 'worker', 'migrate'] as const)('`proctor %s` refuses to start without it, and names it', (mode) => {
    expect(() => loadConfig(mode, production)).toThrow(ConfigError);
    expect(() => loadConfig(mode, production)).toThrow(
      new RegExp(`PROCTOR_MASTER_KEY: required by \`proctor ${mode}\` .*only \`proctor dev\` generates one`),
    );
    expect(() => loadConfig(mode, { ...production, PROCTOR_MASTER_KEY: 'short' })).toThrow(
      /PROCTOR_MASTER_KEY: must be 32 bytes as base64 or 64 hex digits/,
    );
    expect(loadConfig(mode, { ...production, PROCTOR_MASTER_KEY: randomBytes(32).toString('base64') }).mode).toBe(mode);
    expect(loadConfig(mode, { ...production, PROCTOR_MASTER_KEY: randomBytes(32).toString('hex') }).mode).toBe(mode);
  });

  it('`proctor worker` as a process exits 1 with the message, before touching the database', () => {
    const result = spawnSync(process.execPath, proctorArgs('worker'), {
      env: {
        ...process.env,
        ...production,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
        PROCTOR_MASTER_KEY: '',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/PROCTOR_MASTER_KEY: required by `proctor worker`/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
  });

  it('`proctor dev` starts without it and keeps one generated key file, mode 0600', () => {
    expect(loadConfig('dev', {}).mode).toBe('dev');
    const dir = mkdtempSync(join(tmpdir(), 'proctor-dev-key-'));
    try {
      const first = loadMasterKey({ PROCTOR_DATA_DIR: dir });
      const file = masterKeyFile(dir);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(first).toHaveLength(32);
      expect(loadMasterKey({ PROCTOR_DATA_DIR: dir }).equals(first)).toBe(true);
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a wrong master key', () => {
  let ctx: ApiContext;
  const previousKey = process.env.PROCTOR_MASTER_KEY;
  const useKey = (key: string) => {
    process.env.PROCTOR_MASTER_KEY = key;
    resetKeyring();
  };
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  let testCaseId: string;
  let environmentPath: string;

  beforeAll(async () => {
    useKey(randomBytes(32).toString('base64'));
    ctx = await createApiContext('pglite');
    const config = await ctx.call('POST', '/v1/configs', {
      name: 'SHOP_PASSWORD',
      value: `pw-${randomUUID()}`,
      isSecret: true,
    });
    expect(config.status).toBe(201);
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    const env = await ctx.call('POST', `/v1/applications/${app}/environments`, {
      name: 'Preview',
      url: 'https://preview.shop.test',
      access: { httpCredentials: { username: 'qa', password: `basic-${randomUUID()}` } },
    });
    expect(env.status, JSON.stringify(env.body)).toBe(201);
    environmentPath = `/v1/applications/${app}/environments/${env.body.shortId}`;
    const testCase = await ctx.call('POST', '/v1/test-cases', {
      name: 'Sign in',
      goal: 'Sign in',
      applicationShortId: app,
      configShortIds: [config.body.shortId],
    });
    expect(testCase.status).toBe(200);
    testCaseId = testCase.body.testCase.id;
    useKey(randomBytes(32).toString('base64')); // every process restarted with another key
  });
  afterAll(async () => {
    await ctx?.close();
    rmSync(blobDir, { recursive: true, force: true });
    if (previousKey === undefined) delete process.env.PROCTOR_MASTER_KEY;
    else process.env.PROCTOR_MASTER_KEY = previousKey;
    resetKeyring();
  });

  it('answers a 500 whose {message} names the master key, without a stack', async () => {
    const res = await ctx.call('PATCH', environmentPath, { access: { headers: [{ name: 'x-flag', value: 'on' }] } });
    expect(res.status).toBe(500);
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(res.body.message).toMatch(
      /^Stored secrets cannot be read \(data key \S+ is wrapped by master key [0-9a-f]{16}, but PROCTOR_MASTER_KEY is [0-9a-f]{16}.*\): PROCTOR_MASTER_KEY is missing or is not the master key they were stored with \(request id \S+\)$/,
    );
    expect(res.body.message).not.toMatch(/\n\s+at /);
  });

  it('fails the activity at once: a non-retryable ApplicationFailure naming the cause', async () => {
    const deps = createActivityDeps(
      { browser: { concurrency: 1, allowPrivateNetworks: true }, notify: { appUrl: 'https://app.proctor.test' } },
      {
        db: ctx.db,
        blobs: createFsBlobStore({ dir: blobDir, secret: 'y'.repeat(32), publicUrl: 'http://127.0.0.1:3000' }),
        logger: silentLogger,
      },
    );
    try {
      const failure = await createActivities(deps)
        .executeTest({ projectId: ctx.tenant.projectId, testCaseId, artifactPrefix: 'runs/r/t' })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: 'SecretUnreadable', nonRetryable: true });
      expect((failure as Error).message).toMatch(
        /^Stored secrets cannot be read \(.*\): PROCTOR_MASTER_KEY is missing or is not the master key they were stored with$/,
      );
    } finally {
      await deps.browsers.close();
    }
  });
});

describe('one keyring over several databases', () => {
  it('seals each database’s secrets with a data key stored in that database, so another process opens them', async () => {
    const masterKey = randomBytes(32);
    const sealing = new Keyring(masterKey);
    const databases = await Promise.all([freshDatabase('pglite'), freshDatabase('pglite'), freshDatabase('postgres')]);
    try {
      const sealed = [];
      for (const [i, db] of databases.entries()) sealed.push(await sealing.seal(db, `secret ${i}`));
      // A second process (a worker) with the same master key and nothing cached reads each from its own database.
      const opening = new Keyring(masterKey);
      for (const [i, db] of databases.entries()) expect(await opening.open(db, sealed[i]!)).toBe(`secret ${i}`);
      // Sealing again in a database reuses its data key: one per database, not one per secret.
      for (const db of databases) {
        await sealing.seal(db, 'another');
        expect((await db.selectFrom('data_keys').select('id').execute()).length).toBe(1);
      }
    } finally {
      await Promise.all(databases.map((db) => db.destroy()));
    }
  });
});
