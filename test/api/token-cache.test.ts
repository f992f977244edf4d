import { describe, expect, it } from 'vitest';
import { changeFeedOf } from '../../src/db/database.js';
import { createToken, revokeToken, seedProject, setOrganizationSuspended } from '../../src/db/queries/admin.js';
import { TOKEN_CACHE_TTL_MS } from '../../src/db/queries/api-tokens.js';
import { databaseKinds, writeFromElsewhere, useApiContext } from '../support/app-context.js';

describe.each(databaseKinds)('token lookups are cached, and revoke/suspend apply at once (%s)', (kind) => {
  const ctx = useApiContext(kind);

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

  it('suspending an organization gives its tokens 403 at once, and lifting it gives them back', async () => {
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

  /** Polls until the token's answer is `expected` or `ms` pass; returns the last status seen. */
  const statusWithin = async (token: string, expected: number, ms: number) => {
    const deadline = Date.now() + ms;
    let seen = await status(token);
    while (seen !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await status(token);
    }
    return seen;
  };

  const elsewhere = (query: string, values: unknown[]) => writeFromElsewhere(ctx.db, query, values);
  // Far below the cache TTL: only the notification can make the change visible this soon.
  const soon = 3_000;

  it('a revocation or suspension written elsewhere is seen within moments, not after the cache TTL', async () => {
    expect(soon).toBeLessThan(TOKEN_CACHE_TTL_MS / 5);
    const { id, token } = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'other process');
    expect(await status(token)).toBe(200);
    await elsewhere('update api_tokens set revoked_at = now() where id = $1', [id]);
    expect(await statusWithin(token, 401, soon)).toBe(401);

    const org = await seedProject(ctx.db, { organization: 'Umbrella', project: 'Labs' });
    expect(await status(org.token)).toBe(200);
    await elsewhere('update organizations set suspended_at = now() where id = $1', [org.organizationId]);
    expect(await statusWithin(org.token, 403, soon)).toBe(403);
    await elsewhere('update organizations set suspended_at = null where id = $1', [org.organizationId]);
    expect(await statusWithin(org.token, 200, soon)).toBe(200);
    // A deleted project takes its tokens with it.
    await elsewhere('delete from projects where id = $1', [org.projectId]);
    expect(await statusWithin(org.token, 401, soon)).toBe(401);
    expect(await status(ctx.tenant.token)).toBe(200);
  });

  // PGlite has no connection to lose.
  if (kind === 'postgres') {
    it('after the listening connection drops, it reconnects and nothing revoked meanwhile stays accepted', async () => {
      const feed = changeFeedOf(ctx.db)!;
      const { id, token } = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'during an outage');
      expect(await status(token)).toBe(200);
      expect(feed.listening).toBe(true);
      // The server ends the listening session (a restart or failover would), and the token is revoked before
      // the feed is back: that notification is lost, so the feed must drop the cache when it listens again.
      await elsewhere(
        "select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen %' and datname = current_database()",
        [],
      );
      await elsewhere('update api_tokens set revoked_at = now() where id = $1', [id]);
      expect(await statusWithin(token, 401, soon)).toBe(401);
      const deadline = Date.now() + soon;
      while (!feed.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(feed.listening).toBe(true);
      // And it hears the next change as before.
      const next = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'after the outage');
      expect(await status(next.token)).toBe(200);
      await elsewhere('update api_tokens set revoked_at = now() where id = $1', [next.id]);
      expect(await statusWithin(next.token, 401, soon)).toBe(401);
    });
  }
});
