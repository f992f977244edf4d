import { describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';

const seed = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe.each(databaseKinds)('TOTP configs and environment access (%s)', (kind) => {
  const ctx = useApiContext(kind);

  it('keeps a totp config secret and refuses a bad seed or URI with a message saying why', async () => {
    const created = await ctx.call('POST', '/v1/configs', {
      name: 'ADMIN_TOTP',
      value: `otpauth://totp/Shop:ada?secret=${seed}&period=30`,
      type: 'totp',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'totp', isSecret: true, value: null, hasValue: true });
    expect((await ctx.call('GET', `/v1/configs/${created.body.shortId}`)).body.value).toBeNull();

    const bad = await ctx.call('POST', '/v1/configs', { name: 'BAD_TOTP', value: 'not-a-seed!', type: 'totp' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/value: the seed is not base32/);
    const badUri = await ctx.call('POST', '/v1/configs', {
      name: 'BAD_URI',
      value: `otpauth://totp/x?secret=${seed}&algorithm=MD5`,
      type: 'totp',
    });
    expect(badUri.status).toBe(400);
    expect(badUri.body.message).toMatch(/SHA1, SHA256 or SHA512/);
    expect((await ctx.call('PATCH', `/v1/configs/${created.body.shortId}`, { isSecret: false })).status).toBe(400);
    expect((await ctx.call('PATCH', `/v1/configs/${created.body.shortId}`, { value: 'short' })).status).toBe(400);
    const plain = await ctx.call('POST', '/v1/configs', { name: 'PLAIN', value: 'x' });
    const turned = await ctx.call('PATCH', `/v1/configs/${plain.body.shortId}`, { type: 'totp' });
    expect(turned.status).toBe(400);
    expect(turned.body.message).toMatch(/value: required/);
  });

  it('stores basic auth, headers and cookies per environment, never returning a secret, and keeps secrets on partial writes', async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Preview app' })).body.shortId;
    const created = await ctx.call('POST', `/v1/applications/${app}/environments`, {
      name: 'Preview',
      url: 'https://preview.shop.test',
      access: {
        httpCredentials: { username: 'qa', password: 'pw-123456' },
        headers: [
          { name: 'x-bypass', value: 'bypass-secret', isSecret: true },
          { name: 'x-team', value: 'qa' },
        ],
        cookies: [
          { name: 'consent', value: 'yes' },
          { name: 'flag', value: 'hidden-flag', isSecret: true },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.access).toEqual({
      httpCredentials: { username: 'qa', hasPassword: true },
      headers: [
        { name: 'x-bypass', value: null, isSecret: true },
        { name: 'x-team', value: 'qa', isSecret: false },
      ],
      cookies: [
        { name: 'consent', value: 'yes', path: '/', isSecret: false },
        { name: 'flag', value: null, path: '/', isSecret: true },
      ],
    });
    expect(JSON.stringify(created.body)).not.toMatch(/pw-123456|bypass-secret|hidden-flag/);
    const path = `/v1/applications/${app}/environments/${created.body.shortId}`;
    // The client edits one header without knowing the other's secret: the stored value stays.
    const patched = await ctx.call('PATCH', path, {
      access: {
        headers: [
          { name: 'x-bypass', isSecret: true },
          { name: 'x-team', value: 'dev' },
        ],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.access.headers).toEqual([
      { name: 'x-bypass', value: null, isSecret: true },
      { name: 'x-team', value: 'dev', isSecret: false },
    ]);
    expect(patched.body.access.httpCredentials).toEqual({ username: 'qa', hasPassword: true });
    expect(JSON.stringify((await ctx.call('GET', `/v1/applications/${app}/environments`)).body)).not.toMatch(
      /pw-123456|bypass-secret|hidden-flag/,
    );

    const newHeader = await ctx.call('PATCH', path, { access: { headers: [{ name: 'x-new', isSecret: true }] } });
    expect(newHeader.status).toBe(400);
    expect(newHeader.body.message).toMatch(/"x-new" needs a value/);
    expect((await ctx.call('PATCH', path, { access: { headers: [{ name: 'Host', value: 'evil' }] } })).status).toBe(
      400,
    );
    expect((await ctx.call('PATCH', path, { access: { headers: [{ name: 'bad header', value: 'x' }] } })).status).toBe(
      400,
    );
    expect(
      (await ctx.call('PATCH', path, { access: { httpCredentials: null } })).body.access.httpCredentials,
    ).toBeNull();
    // Refused before anything is written: no environment is left behind by a 400.
    const before = (await ctx.call('GET', `/v1/applications/${app}/environments`)).body.environments.length;
    const refused = await ctx.call('POST', `/v1/applications/${app}/environments`, {
      name: 'Bad',
      url: 'https://bad.shop.test',
      access: { headers: [{ name: 'Content-Length', value: '1' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/"Content-Length" cannot be set/);
    expect((await ctx.call('GET', `/v1/applications/${app}/environments`)).body.environments).toHaveLength(before);
  });
});
