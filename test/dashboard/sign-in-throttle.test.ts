import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { countFailureRows } from '../../src/db/queries/sign-in-failures.js';
import { freshDatabase } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { serveForSignIn } from '../support/sign-in-http.js';
import { signInLimits, SignInThrottle } from '../../src/services/sign-in-throttle.js';

const madeUp = () => `prt_${randomBytes(30).toString('base64url').slice(0, 40)}`;

describe('dashboard sign-in throttle', () => {
  const served = serveAppForTests('pglite', serveForSignIn);

  it('refuses an address after 10 failures with 429, Retry-After and a readable message; other addresses sign in, and their success clears nothing', async () => {
    for (let i = 0; i < signInLimits.perAddress; i++)
      expect((await served.front.signIn(madeUp(), '127.0.0.2')).status).toBe(401);
    // Even the right token is refused now, unchecked: the answer says nothing about it.
    const blocked = await served.front.signIn(served.api.tenant.token, '127.0.0.2');
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(blocked.body).toMatch(
      /role="alert"[^>]*>Too many failed sign-ins from your network address\. Try again in 15 minutes\./,
    );
    expect(blocked.body).toContain('name="token"'); // the form is still there to try later

    const elsewhere = await served.front.signIn(served.api.tenant.token, '127.0.0.3');
    expect([elsewhere.status, elsewhere.headers.location]).toEqual([303, '/runs']);
    expect((await served.front.signIn(madeUp(), '127.0.0.2')).status).toBe(429);

    // Throttled attempts are not in the audit log: only the 10 failures and the one success are.
    const log = await served.api.call('GET', '/v1/audit-log?kind=sign_in.succeeded');
    expect(log.body.events).toHaveLength(1);
    const failures = await served.api.db
      .selectFrom('audit_events')
      .select('client_address')
      .where('kind', '=', 'sign_in.failed')
      .execute();
    expect(failures.map((f) => f.client_address)).toEqual(Array(signInLimits.perAddress).fill('127.0.0.2'));
  });

  it('refuses a token prefix tried from many addresses, and not other prefixes', async () => {
    const prefix = 'prt_Zq9x';
    for (let i = 0; i < signInLimits.perPrefix; i++) {
      expect((await served.front.signIn(`${prefix}${madeUp().slice(8)}`, `127.0.1.${i + 1}`)).status).toBe(401);
    }
    const blocked = await served.front.signIn(`${prefix}${madeUp().slice(8)}`, '127.0.2.1');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body).toContain('Too many failed sign-ins with tokens starting like this one');
    expect((await served.front.signIn(madeUp(), '127.0.2.1')).status).toBe(401);
    expect((await served.front.signIn(served.api.tenant.token, '127.0.2.1')).status).toBe(303);
  });
});

describe('SignInThrottle', () => {
  let db: DB;
  beforeAll(async () => {
    db = await freshDatabase('pglite');
  });
  afterAll(() => db?.destroy());

  it('lets an address try again once the window has slid past its failures', async () => {
    let now = Date.parse('2026-11-28T10:00:00Z');
    const start = now;
    const throttle = new SignInThrottle(db, { perAddress: 3, perPrefix: 100, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 3; i++) {
      now += 1000;
      await throttle.failed('a', madeUp());
    }
    expect(await throttle.check('a', madeUp())).toEqual({ allowed: false, by: 'address', retryAfterSeconds: 58 });
    now = start + 61_001; // the first failure (at 1 s) has left the window
    expect(await throttle.check('a', madeUp())).toEqual({ allowed: true });
  });

  it('keeps only the failures of the last window, however many clients fail', async () => {
    let now = Date.parse('2026-11-29T10:00:00Z'); // a day after the test above: its failures go with the first insert
    const throttle = new SignInThrottle(db, { perAddress: 3, perPrefix: 3, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 300; i++) await throttle.failed(`10.0.${i >> 8}.${i & 255}`, madeUp());
    expect(await countFailureRows(db)).toEqual({ address: 300, prefix: 300 });
    now += 60_001;
    await throttle.failed('10.1.0.1', madeUp());
    expect(await countFailureRows(db)).toEqual({ address: 1, prefix: 1 });
  });
});
