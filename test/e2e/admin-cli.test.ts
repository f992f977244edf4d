import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { createDatabase, type DB } from '../../src/db/database.js';
import { TOKEN_CACHE_TTL_MS } from '../../src/db/queries/api-tokens.js';
import { hashToken } from '../../src/ids.js';
import { silentLogger } from '../../src/logger.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { databaseUrlOf, freshDatabase } from '../support/app-context.js';
import { proctorArgs } from '../support/proctor-cli.js';
import { inject } from 'vitest';

describe('proctor admin', () => {
  let db: DB;
  let apiDb: DB;
  let url: string;
  let app: ReturnType<typeof createApp>;

  const admin = (...args: string[]) => {
    const result = spawnSync(process.execPath, proctorArgs('admin', ...args), {
      env: { ...process.env, DATABASE_URL: url },
      encoding: 'utf8',
    });
    return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
  };
  const get = (token: string) => app.request('/v1/applications', { headers: { authorization: `Bearer ${token}` } });
  /** Polls until the answer has `status` or `ms` pass; returns the last status seen. */
  const statusWithin = async (token: string, status: number, ms: number) => {
    const deadline = Date.now() + ms;
    let seen = (await get(token)).status;
    while (seen !== status && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      seen = (await get(token)).status;
    }
    return seen;
  };

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    url = databaseUrlOf(db)!;
    // The API reads the same database the CLI writes: a token created by the CLI works at once.
    apiDb = createDatabase({ kind: 'postgres', url });
    app = createApp({
      db: apiDb,
      config: {
        appUrl: 'https://app.test',
        publicUrl: 'http://127.0.0.1:1',
        PROCTOR_URL_TTL_SECONDS: 60,
        PROCTOR_RUN_CONCURRENCY: 10,
      },
      temporal: createTemporalClientProvider({
        address: inject('temporalAddress'),
        namespace: 'default',
        taskQueue: 'unused',
      }),
      blobs: createFsBlobStore({
        dir: '/tmp/proctor-admin-cli-blobs',
        secret: 'x'.repeat(32),
        publicUrl: 'http://127.0.0.1:1',
      }),
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await apiDb.destroy();
    await db.destroy();
  });

  it('creates an organization, project and tokens; suspends and unsuspends', async () => {
    const org = admin('create-org', '--name', 'Acme');
    expect(org.code).toBe(0);
    const project = admin('create-project', '--org', org.out, '--name', 'Shop');
    expect(project.code).toBe(0);
    const token = admin('create-token', '--project', project.out);
    expect(token.out).toMatch(/^prt_[A-Za-z0-9]{40}$/);
    const badge = admin('create-badge-token', '--project', project.out);
    expect(badge.out).toMatch(/^prb_/);

    expect((await get(token.out)).status).toBe(200);
    expect((await get(badge.out)).status).toBe(403);

    // The CLI is another process, and the API has the token cached: the change reaches the API by
    // LISTEN/NOTIFY, well before the cache entry would expire (TOKEN_CACHE_TTL_MS).
    const soon = 3_000;
    expect(soon).toBeLessThan(TOKEN_CACHE_TTL_MS / 5);
    expect(admin('suspend-org', '--org', org.out).code).toBe(0);
    expect(await statusWithin(token.out, 403, soon)).toBe(403);
    expect(admin('unsuspend-org', '--org', org.out).code).toBe(0);
    expect(await statusWithin(token.out, 200, soon)).toBe(200);

    const tokenRow = await db
      .selectFrom('api_tokens')
      .select('id')
      .where('token_hash', '=', hashToken(token.out))
      .executeTakeFirstOrThrow();
    expect(admin('revoke-token', '--token-id', tokenRow.id).code).toBe(0);
    expect(await statusWithin(token.out, 401, soon)).toBe(401);

    const projects = admin('list-projects');
    expect(projects.out).toContain(project.out);
    expect(projects.out).toContain('Acme');
  }, 180_000);

  it('explains its usage and refuses unknown input', () => {
    const missing = admin('create-project', '--name', 'No org');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--org is required/);
    expect(admin('suspend-org', '--org', '00000000-0000-0000-0000-000000000000').code).toBe(1);
    expect(admin('frobnicate').code).toBe(2);
  }, 120_000);
});
