import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../../src/cli/rotate-master-key.js';
import type { DB } from '../../src/db/database.js';
import { readEnvironmentAccess } from '../../src/db/queries/environment-access.js';
import { loadExecutionContext } from '../../src/db/queries/execution.js';
import { findGitIntegrationByProvider } from '../../src/db/queries/git-integrations.js';
import { sealStoredSecrets } from '../../src/db/queries/stored-secrets.js';
import { keyring, resetKeyring, SecretUnreadableError } from '../../src/db/secrets.js';
import { createApiContext, databaseKinds, type ApiContext } from '../support/app-context.js';
import { rowIdOf } from '../support/row-ids.js';

// Secrets at rest: after one of each kind is created through the API, no table of the database holds any of them in
// clear, each is still what the runs and integrations read, and a master-key rotation keeps them readable.

/** Every row of every table of the database, as text: what a dump or a backup would hold. */
async function rawDatabase(db: DB): Promise<string> {
  const tables = await sql<{
    name: string;
  }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(
    db,
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(db);
    parts.push(...rows.rows.map((r) => r.row));
  }
  return parts.join('\n');
}

describe.each(databaseKinds)('secrets at rest (%s)', (kind) => {
  let ctx: ApiContext;
  const previousKey = process.env.PROCTOR_MASTER_KEY;
  const secrets = {
    config: `cfg-${randomUUID()}`,
    totpSeed: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXQ',
    password: `pw-${randomUUID()}`,
    header: `bypass-${randomUUID()}`,
    cookie: `cookie-${randomUUID()}`,
    privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString(),
    githubWebhook: `whsec-${randomUUID()}`,
    gitlabToken: `glpat-${randomUUID()}`,
    gitlabWebhook: `glwh-${randomUUID()}`,
  };
  // The private key's body lines: any of them in clear would leak it.
  const needles = () => [
    ...Object.entries(secrets)
      .filter(([k]) => k !== 'privateKey')
      .map(([, v]) => v),
    ...secrets.privateKey.split('\n').slice(1, -2),
  ];
  const inClear = (text: string) => needles().filter((n) => text.includes(n));
  let testCaseId: string;
  let envId: string;

  beforeAll(async () => {
    process.env.PROCTOR_MASTER_KEY = randomBytes(32).toString('base64');
    resetKeyring();
    ctx = await createApiContext(kind);
  });
  afterAll(async () => {
    await ctx?.close();
    if (previousKey === undefined) delete process.env.PROCTOR_MASTER_KEY;
    else process.env.PROCTOR_MASTER_KEY = previousKey;
    resetKeyring();
  });

  async function readBack() {
    const { projectId } = ctx.tenant;
    const run = (await loadExecutionContext(ctx.db, projectId, testCaseId))!;
    const github = (await findGitIntegrationByProvider(ctx.db, projectId, 'github'))!;
    const gitlab = (await findGitIntegrationByProvider(ctx.db, projectId, 'gitlab'))!;
    const access = (await readEnvironmentAccess(ctx.db, envId))!;
    return {
      configs: run.configs,
      github: { privateKey: github.private_key, webhookSecret: github.webhook_secret },
      gitlab: { token: gitlab.token, webhookSecret: gitlab.webhook_secret },
      access: {
        password: access.httpCredentials?.password,
        header: access.headers[0]?.value,
        cookie: access.cookies[0]?.value,
      },
    };
  }
  const expected = () => ({
    configs: { SHOP_PASSWORD: secrets.config, ADMIN_TOTP: secrets.totpSeed, SHOP_EMAIL: 'ada@shop.test' },
    github: { privateKey: secrets.privateKey, webhookSecret: secrets.githubWebhook },
    gitlab: { token: secrets.gitlabToken, webhookSecret: secrets.gitlabWebhook },
    access: { password: secrets.password, header: secrets.header, cookie: secrets.cookie },
  });

  it('stores none of the secrets in clear, and each reads back as it was given', async () => {
    const configIds = [];
    for (const body of [
      { name: 'SHOP_PASSWORD', value: secrets.config, isSecret: true },
      { name: 'ADMIN_TOTP', value: secrets.totpSeed, type: 'totp' },
      { name: 'SHOP_EMAIL', value: 'ada@shop.test' },
    ]) {
      const created = await ctx.call('POST', '/v1/configs', body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      configIds.push(created.body.shortId);
    }
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    const env = await ctx.call('POST', `/v1/applications/${app}/environments`, {
      name: 'Preview',
      url: 'https://preview.shop.test',
      access: {
        httpCredentials: { username: 'qa', password: secrets.password },
        headers: [{ name: 'x-bypass', value: secrets.header, isSecret: true }],
        cookies: [{ name: 'flag', value: secrets.cookie, isSecret: true }],
      },
    });
    expect(env.status, JSON.stringify(env.body)).toBe(201);
    envId = await rowIdOf(ctx.db, 'environments', env.body.shortId);
    const github = await ctx.call('POST', '/v1/git-integrations', {
      provider: 'github',
      auth: 'app',
      appId: 123456,
      privateKey: secrets.privateKey,
      webhookSecret: secrets.githubWebhook,
    });
    expect(github.status, JSON.stringify(github.body)).toBe(201);
    const gitlab = await ctx.call('POST', '/v1/git-integrations', {
      provider: 'gitlab',
      token: secrets.gitlabToken,
      webhookSecret: secrets.gitlabWebhook,
    });
    expect(gitlab.status, JSON.stringify(gitlab.body)).toBe(201);
    const testCase = await ctx.call('POST', '/v1/test-cases', {
      name: 'Sign in',
      goal: 'Sign in',
      applicationShortId: app,
      configShortIds: configIds,
    });
    expect(testCase.status, JSON.stringify(testCase.body)).toBe(200);
    testCaseId = testCase.body.testCase.id;

    const raw = await rawDatabase(ctx.db);
    expect(raw).toContain('ada@shop.test'); // the scan reads the tables that hold them
    expect(raw).toMatch(/enc:v1:/);
    expect(inClear(raw)).toEqual([]);
    expect(await readBack()).toEqual(expected());
  });

  it('seals what was stored in clear before encryption, once', async () => {
    // As a database written before this release holds them.
    const { projectId } = ctx.tenant;
    await ctx.db
      .updateTable('configs')
      .set({ value: secrets.config })
      .where('project_id', '=', projectId)
      .where('name', '=', 'SHOP_PASSWORD')
      .execute();
    await ctx.db
      .updateTable('git_integrations')
      .set({ token: secrets.gitlabToken, webhook_secret: secrets.gitlabWebhook })
      .where('project_id', '=', projectId)
      .where('provider', '=', 'gitlab')
      .execute();
    await ctx.db
      .updateTable('environments')
      .set({
        access: JSON.stringify({
          httpCredentials: { username: 'qa', password: secrets.password },
          headers: [{ name: 'x-bypass', value: secrets.header, isSecret: true }],
          cookies: [{ name: 'flag', value: secrets.cookie, isSecret: true }],
        }),
      })
      .where('id', '=', envId)
      .execute();
    expect(inClear(await rawDatabase(ctx.db))).toEqual(
      [
        secrets.config,
        secrets.password,
        secrets.header,
        secrets.cookie,
        secrets.gitlabToken,
        secrets.gitlabWebhook,
      ].sort((a, b) => needles().indexOf(a) - needles().indexOf(b)),
    );
    // Readable while still in clear (a database mid-upgrade keeps working).
    expect(await readBack()).toEqual(expected());

    expect(await sealStoredSecrets(ctx.db, keyring())).toEqual({ configs: 1, gitIntegrations: 1, environments: 1 });
    expect(inClear(await rawDatabase(ctx.db))).toEqual([]);
    expect(await readBack()).toEqual(expected());
    expect(await sealStoredSecrets(ctx.db, keyring())).toEqual({ configs: 0, gitIntegrations: 0, environments: 0 });
  });

  it('rotates the master key: everything stays readable with the new key, nothing with the old one', async () => {
    const oldKey = process.env.PROCTOR_MASTER_KEY!;
    const newKey = randomBytes(32).toString('base64');
    const lines: string[] = [];
    await rotateMasterKey(ctx.db, (l) => lines.push(l), { PROCTOR_MASTER_KEY: oldKey, PROCTOR_NEW_MASTER_KEY: newKey });
    expect(lines[0]).toMatch(/^re-wrapped [1-9]\d* data key\(s\)\.$/);
    expect(lines.join('\n')).not.toContain(newKey);

    process.env.PROCTOR_MASTER_KEY = newKey;
    resetKeyring();
    expect(await readBack()).toEqual(expected());
    expect(inClear(await rawDatabase(ctx.db))).toEqual([]);

    process.env.PROCTOR_MASTER_KEY = oldKey;
    resetKeyring();
    await expect(readBack()).rejects.toThrow(SecretUnreadableError);
    await expect(readBack()).rejects.toThrow(
      /is wrapped by master key [0-9a-f]{16}, but PROCTOR_MASTER_KEY is [0-9a-f]{16}/,
    );
    process.env.PROCTOR_MASTER_KEY = newKey;
    resetKeyring();
  });

  it('rotates a dev key file in place: the new key replaces it (mode 0600) once the data keys are re-wrapped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proctor-keys-'));
    try {
      const file = join(dir, 'master.key');
      writeFileSync(file, `${process.env.PROCTOR_MASTER_KEY}\n`, { mode: 0o600 });
      const lines: string[] = [];
      await rotateMasterKey(ctx.db, (l) => lines.push(l), { PROCTOR_DATA_DIR: dir });
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^re-wrapped [1-9]\\d* data key\\(s\\); the new master key is in ${file}$`)),
      ]);
      expect(readdirSync(dir)).toEqual(['master.key']);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const rotated = readFileSync(file, 'utf8').trim();
      expect(rotated).not.toBe(process.env.PROCTOR_MASTER_KEY);
      process.env.PROCTOR_MASTER_KEY = rotated;
      resetKeyring();
      expect(await readBack()).toEqual(expected());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
