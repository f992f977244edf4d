import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, revokeToken, seedProject, setOrganizationSuspended } from '../../src/db/queries/admin.js';
import { createApiContext, databaseKinds, type ApiContext } from '../support/app-context.js';

describe.each(databaseKinds)('token lookups are cached, and revoke/suspend apply at once (%s)', (kind) => {
  let ctx: ApiContext;
  beforeAll(async () => {
    ctx = await createApiContext(kind);
  });
  afterAll(() => ctx.close());

  const status = async (token: string) => (await ctx.call('GET', '/v1/applications', undefined, token)).status;

  it('a revoked token gets 401 on the very next request', async () => {
    const { id, token } = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'ci');
    expect(await status(token)).toBe(200);
    expect(await status(token)).toBe(200);
    expect(await revokeToken(ctx.db, id)).toBe(true);
    const res = await ctx.call('GET', '/v1/applications', undefined, token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Invalid API token' });
    // The project's other tokens are untouched.
    expect(await status(ctx.tenant.token)).toBe(200);
  });

  it("suspending an organization gives its tokens 403 at once, and lifting it gives them back", async () => {
    const org = await seedProject(ctx.db, { organization: 'Initech', project: 'Portal' });
    expect(await status(org.token)).toBe(200);
    await setOrganizationSuspended(ctx.db, org.organizationId, true);
    const res = await ctx.call('GET', '/v1/applications', undefined, org.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/suspended/);
    expect(await status(ctx.tenant.token)).toBe(200);
    await setOrganizationSuspended(ctx.db, org.organizationId, false);
    expect(await status(org.token)).toBe(200);
  });

  it('a revocation written by another process is seen only after the cache entry expires', async () => {
    // What `proctor admin revoke-token` does from its own process: the row changes, this process's cache does not.
    const { id, token } = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'other process');
    expect(await status(token)).toBe(200);
    await ctx.db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('id', '=', id).execute();
    expect(await status(token)).toBe(200);
    // The same call in this process forgets the entry (its update finds the token already revoked).
    expect(await revokeToken(ctx.db, id)).toBe(false);
    expect(await status(token)).toBe(401);
  });
});
