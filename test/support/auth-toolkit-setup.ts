// What the auth toolkit test and the secrets-at-rest test set up on the fixture's auth pages
// (test/support/fixtures/auth-toolkit.ts) before they burn anything in: the TOTP sign-in with the configs it types,
// and the preview behind basic auth, a bypass header and a consent cookie. Made through the API as a user would.
import { expect } from 'vitest';
import type { ScriptedTest } from './burn-in-flows.js';
import { previewAccess, totpAccount } from './fixtures/auth-toolkit.js';
import { totpGoal, totpMoves } from './totp-moves.js';
import type { Stack } from './worker-context.js';

type Api = Pick<Stack, 'call'>;

/** POSTs `body` to `path` and returns what was created (201, else the failure says what the API answered). */
async function created(api: Api, path: string, body: unknown): Promise<any> {
  const res = await api.call('POST', path, body);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body;
}

/**
 * The "Auth app" on the fixture's sign-in page and the configs `totpMoves` type: AUTH_EMAIL, AUTH_PASSWORD (a
 * secret) and AUTH_TOTP (the seed's otpauth URI). Returns the configs as created and the test to burn in on the
 * app: "2FA sign-in", by `totpMoves`, with the three configs.
 */
export async function addTotpSignIn(api: Api, fixtureUrl: string): Promise<{ configs: any[]; test: ScriptedTest }> {
  const appShortId = (await created(api, '/v1/applications', { name: 'Auth app' })).shortId as string;
  await created(api, `/v1/applications/${appShortId}/environments`, { name: 'Local', url: `${fixtureUrl}/auth/login` });
  const configs = [
    await created(api, '/v1/configs', { name: 'AUTH_EMAIL', value: totpAccount.email }),
    await created(api, '/v1/configs', { name: 'AUTH_PASSWORD', value: totpAccount.password, isSecret: true }),
    await created(api, '/v1/configs', { name: 'AUTH_TOTP', value: totpAccount.uri, type: 'totp' }),
  ];
  const test = {
    name: '2FA sign-in',
    goal: totpGoal,
    moves: totpMoves,
    applicationShortId: appShortId,
    extra: { configShortIds: configs.map((c) => c.shortId as string) },
  };
  return { configs, test };
}

/**
 * The "Preview app" on the fixture's preview deployment, whose environment carries all three ways in: basic auth,
 * the bypass header (a secret) and the consent cookie. Returns the application's and the environment's short ids.
 */
export async function addProtectedPreview(
  api: Api,
  fixtureUrl: string,
): Promise<{ appShortId: string; envShortId: string }> {
  const appShortId = (await created(api, '/v1/applications', { name: 'Preview app' })).shortId as string;
  const env = await created(api, `/v1/applications/${appShortId}/environments`, {
    name: 'Preview',
    url: `${fixtureUrl}/preview/`,
    access: {
      httpCredentials: { username: previewAccess.username, password: previewAccess.password },
      headers: [{ name: previewAccess.header, value: previewAccess.token, isSecret: true }],
      cookies: [{ name: previewAccess.cookie, value: previewAccess.cookieValue }],
    },
  });
  return { appShortId, envShortId: env.shortId as string };
}
