import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applicationIdOf, insertTestCaseRow } from '../support/recorded.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { expectBadRequests } from '../support/bad-requests.js';
import { expectHiddenFromCaller } from '../support/unknown-ids.js';
import { openSecret } from '../../src/db/secrets.js';
import { rowIdOf } from '../support/row-ids.js';

describe.each(databaseKinds)('configs (%s)', (kind) => {
  const ctx = useApiContext(kind);

  const list = async () => (await ctx.call('GET', '/v1/configs')).body.configs as { name: string; shortId: string }[];

  it('creates, lists, gets, updates and deletes a plain config, returning its value', async () => {
    const created = await ctx.call('POST', '/v1/configs', { name: 'LOGIN_EMAIL', value: 'qa@shop.test' });
    expect(created.status).toBe(201);
    expect(created.body.shortId).toMatch(/^cfg_.+$/);
    expect(created.body).toMatchObject({ name: 'LOGIN_EMAIL', value: 'qa@shop.test', isSecret: false, hasValue: true });
    expect(Object.keys(created.body).sort()).toEqual([
      'createdAt',
      'hasValue',
      'isSecret',
      'name',
      'shortId',
      'type',
      'updatedAt',
      'value',
    ]);

    expect((await ctx.call('GET', `/v1/configs/${created.body.shortId}`)).body).toEqual(created.body);
    expect((await list()).map((c) => c.name)).toContain('LOGIN_EMAIL');

    const updated = await ctx.call('PATCH', `/v1/configs/${created.body.shortId}`, {
      name: 'ADMIN_EMAIL',
      value: 'admin@shop.test',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      shortId: created.body.shortId,
      name: 'ADMIN_EMAIL',
      value: 'admin@shop.test',
      isSecret: false,
    });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));

    const deleted = await ctx.call('DELETE', `/v1/configs/${created.body.shortId}`);
    expect(deleted.body).toEqual({ deleted: true });
    const gone = await ctx.call('GET', `/v1/configs/${created.body.shortId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Config not found');
    expect((await list()).map((c) => c.name)).not.toContain('ADMIN_EMAIL');
  });

  it('never returns a secret value, in any response', async () => {
    const secret = `s3cret-${randomUUID()}`;
    const texts: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await ctx.call(method, path, body);
      texts.push(JSON.stringify(res.body));
      return res;
    };

    const created = await call('POST', '/v1/configs', { name: 'LOGIN_PASSWORD', value: secret, isSecret: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'LOGIN_PASSWORD', value: null, isSecret: true, hasValue: true });
    const path = `/v1/configs/${created.body.shortId}`;
    expect((await call('GET', path)).body).toMatchObject({ value: null, hasValue: true });
    const listed = (await call('GET', '/v1/configs')).body.configs.find(
      (c: { shortId: string }) => c.shortId === created.body.shortId,
    );
    expect(listed).toMatchObject({ value: null, isSecret: true, hasValue: true });

    // Renaming keeps it secret; a duplicate name or a bad request does not echo the value either.
    expect((await call('PATCH', path, { name: 'USER_PASSWORD' })).body).toMatchObject({
      name: 'USER_PASSWORD',
      value: null,
    });
    await call('POST', '/v1/configs', { name: 'USER_PASSWORD', value: secret, isSecret: true });
    await call('PATCH', path, { isSecret: false });
    await call('POST', '/v1/configs', { name: 'bad name', value: secret });

    // A new secret value is accepted and hidden too.
    const rotated = `rotated-${randomUUID()}`;
    expect((await call('PATCH', path, { value: rotated })).body).toMatchObject({ value: null, hasValue: true });
    expect(texts.join('\n')).not.toContain(secret);
    expect(texts.join('\n')).not.toContain(rotated);

    // The value is stored, just never shown.
    const row = await ctx.db
      .selectFrom('configs')
      .select('value')
      .where('short_id', '=', created.body.shortId)
      .executeTakeFirstOrThrow();
    // Sealed at rest (test/api/secrets-at-rest.test.ts); opened, it is the new value.
    expect(row.value).not.toContain(rotated);
    expect(await openSecret(ctx.db, row.value)).toBe(rotated);
    expect((await call('DELETE', path)).body).toEqual({ deleted: true });
    expect(texts.join('\n')).not.toContain(rotated);
  });

  it('turns a secret into a plain config only with a new value', async () => {
    const secret = `hidden-${randomUUID()}`;
    const created = (await ctx.call('POST', '/v1/configs', { name: 'API_KEY', value: secret, isSecret: true })).body;
    const path = `/v1/configs/${created.shortId}`;

    const refused = await ctx.call('PATCH', path, { isSecret: false });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/value/);
    const stillSecret = await ctx.call('GET', path);
    expect(stillSecret.body).toMatchObject({ isSecret: true, value: null });

    const plain = await ctx.call('PATCH', path, { isSecret: false, value: 'public-key' });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ isSecret: false, value: 'public-key' });
    expect(JSON.stringify(plain.body)).not.toContain(secret);

    // Plain to secret needs no new value, and hides the current one from then on.
    const hidden = await ctx.call('PATCH', path, { isSecret: true });
    expect(hidden.body).toMatchObject({ isSecret: true, value: null, hasValue: true });
  });

  it('rejects a duplicate name with 409, on create and on rename', async () => {
    const first = (await ctx.call('POST', '/v1/configs', { name: 'BASE_URL', value: 'https://a.test' })).body;
    const duplicate = await ctx.call('POST', '/v1/configs', { name: 'BASE_URL', value: 'https://b.test' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toMatch(/BASE_URL/);
    expect((await list()).filter((c) => c.name === 'BASE_URL')).toHaveLength(1);

    const second = (await ctx.call('POST', '/v1/configs', { name: 'OTHER_URL', value: 'https://c.test' })).body;
    const rename = await ctx.call('PATCH', `/v1/configs/${second.shortId}`, { name: 'BASE_URL' });
    expect(rename.status).toBe(409);
    expect((await ctx.call('GET', `/v1/configs/${second.shortId}`)).body.name).toBe('OTHER_URL');
    // Renaming a config to its own name is no conflict.
    expect(
      (await ctx.call('PATCH', `/v1/configs/${first.shortId}`, { name: 'BASE_URL', value: 'https://d.test' })).status,
    ).toBe(200);

    // Names are unique per project: another project may use the same one.
    const theirs = await ctx.call(
      'POST',
      '/v1/configs',
      { name: 'BASE_URL', value: 'https://theirs.test' },
      ctx.other.token,
    );
    expect(theirs.status).toBe(201);
  });

  it('validates input with a message naming the field, and writes nothing', async () => {
    const before = await list();
    const cases: [unknown, RegExp][] = [
      [{ value: 'x' }, /name/],
      [{ name: 'has space', value: 'x' }, /name/],
      [{ name: '1STARTS_WITH_DIGIT', value: 'x' }, /name/],
      [{ name: 'DASH-ED', value: 'x' }, /name/],
      [{ name: 'A'.repeat(81), value: 'x' }, /name/],
      [{ name: 'NO_VALUE' }, /value/],
      [{ name: 'NUMBER_VALUE', value: 42 }, /value/],
      [{ name: 'SECRET_FLAG', value: 'x', isSecret: 'yes' }, /isSecret/],
    ];
    await expectBadRequests((body) => ctx.call('POST', '/v1/configs', body), cases);
    expect(await list()).toEqual(before);
  });

  it('removes a deleted config from the test cases that listed it', async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body;
    const applicationId = await applicationIdOf(ctx.db, app.shortId);
    const keep = (await ctx.call('POST', '/v1/configs', { name: 'KEEP_ME', value: 'k' })).body;
    const drop = (await ctx.call('POST', '/v1/configs', { name: 'DROP_ME', value: 'd' })).body;
    const idOf = (shortId: string) => rowIdOf(ctx.db, 'configs', shortId);
    const [keepId, dropId] = [await idOf(keep.shortId), await idOf(drop.shortId)];
    const testCaseId = await insertTestCaseRow(
      ctx.db,
      { projectId: ctx.tenant.projectId, applicationId },
      { name: 'Log in', config_ids: [keepId, dropId] },
    );

    expect((await ctx.call('DELETE', `/v1/configs/${drop.shortId}`)).status).toBe(200);
    const row = await ctx.db
      .selectFrom('test_cases')
      .select('config_ids')
      .where('id', '=', testCaseId)
      .executeTakeFirstOrThrow();
    expect(row.config_ids).toEqual([keepId]);
  });

  it("hides another project's configs (404 on every route) and lists only the caller's", async () => {
    const secret = `theirs-${randomUUID()}`;
    const theirs = (
      await ctx.call('POST', '/v1/configs', { name: 'THEIR_TOKEN', value: secret, isSecret: true }, ctx.other.token)
    ).body;
    const still = await expectHiddenFromCaller(ctx, {
      path: '/v1/configs',
      shortId: theirs.shortId,
      message: 'Config not found',
      patches: [{ isSecret: false, value: 'x' }],
    });
    expect((await list()).map((c) => c.name)).not.toContain('THEIR_TOKEN');
    expect(still).toMatchObject({ name: 'THEIR_TOKEN', isSecret: true, value: null });
  });
});
