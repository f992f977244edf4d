import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { serveForSignIn, type SignInServer } from '../support/sign-in-http.js';
import { addShopWithLogin, loginSteps } from '../support/recorded.js';
import { keepHealedSteps } from '../../src/services/heal-proposals.js';
import { createProjectToken, revokeProjectToken } from '../../src/services/api-tokens.js';
import { auditKinds } from '../../src/domain/audit.js';

// Every kind of audited decision, made the way a person makes it (the dashboard's form over HTTP, the API, the
// CLI's token operations), then read back through GET /v1/audit-log.
describe('audit log', () => {
  const served = serveAppForTests('postgres', serveForSignIn);
  let api: ApiContext;
  let web: SignInServer;
  let testCaseId: string;
  let callerTokenId: string;

  beforeAll(async () => {
    ({ api, front: web } = served);
    callerTokenId = (
      await api.db
        .selectFrom('api_tokens')
        .select('id')
        .where('project_id', '=', api.tenant.projectId)
        .executeTakeFirstOrThrow()
    ).id;
    ({ testCaseId } = await addShopWithLogin(api));
  });

  const events = async (query = '', token?: string) => {
    const res = await api.call('GET', `/v1/audit-log${query}`, undefined, token);
    expect(res.status).toBe(200);
    return res.body as {
      events: Array<{
        kind: string;
        actor: { type: string; id?: string };
        subject: string | null;
        details: Record<string, unknown>;
        at: string;
      }>;
      total: number;
    };
  };

  it('lists each kind of decision once, scoped to the project, newest first, with who acted and no secret', async () => {
    // Sign-ins through the form: one failed with a revoked token of this project, one made-up token, one success.
    const revoked = await createProjectToken(api, { projectId: api.tenant.projectId, kind: 'api', name: 'laptop' });
    expect(await revokeProjectToken(api, revoked.id)).toBe(true);
    expect((await web.signIn(revoked.token)).status).toBe(401);
    expect((await web.signIn('prt_madeUpTokenThatNobodyIssued000000000000')).status).toBe(401);
    expect((await web.signIn(api.tenant.token)).status).toBe(303);

    const gitlab = await api.call('POST', '/v1/git-integrations', {
      provider: 'gitlab',
      token: 'glpat-secret-value-1234567890',
    });
    expect(gitlab.status).toBe(201);
    expect(
      (
        await api.call('PATCH', `/v1/git-integrations/${gitlab.body.shortId}`, {
          token: 'glpat-second-secret-0987654321',
        })
      ).status,
    ).toBe(200);
    expect((await api.call('DELETE', `/v1/git-integrations/${gitlab.body.shortId}`)).status).toBe(200);

    const propose = async (basedOnVersion: number, name: string) =>
      keepHealedSteps(api, {
        projectId: api.tenant.projectId,
        testCaseId,
        basedOnVersion,
        steps: loginSteps.map((s, i) => (i === 3 ? { ...s, locator: `getByRole('button', { name: '${name}' })` } : s)),
        healed: [{ index: 3, from: loginSteps[3]!.locator, to: name, via: 'llm', reason: 'relabelled' }],
      });
    expect(await propose(1, 'Anmelden')).toEqual({ kept: 'proposed', version: 2 });
    expect((await api.call('POST', `/v1/test-cases/${testCaseId}/steps/2/accept`)).status).toBe(200);
    expect(await propose(2, 'Continuer')).toEqual({ kept: 'proposed', version: 3 });
    expect((await api.call('POST', `/v1/test-cases/${testCaseId}/steps/3/reject`)).status).toBe(200);
    const edited = loginSteps.map((s, i) => (i === 0 ? { ...s, description: "Open the shop's sign-in page" } : s));
    expect(
      await api.call('PUT', `/v1/test-cases/${testCaseId}/steps`, { basedOnVersion: 2, steps: edited }),
    ).toMatchObject({ status: 200, body: { version: 3 } });

    expect((await api.call('PATCH', `/v1/test-cases/${testCaseId}`, { quarantined: true })).status).toBe(200);
    expect((await api.call('PATCH', `/v1/test-cases/${testCaseId}`, { quarantined: true })).status).toBe(200); // no change, no event
    expect((await api.call('PATCH', `/v1/test-cases/${testCaseId}`, { quarantined: false })).status).toBe(200);
    expect(
      (await api.call('PATCH', '/v1/project/settings', { quarantine: { flakeRate: 0.3, minRuns: 5 } })).status,
    ).toBe(200);
    // The other project's own change is its business only.
    expect((await api.call('PATCH', '/v1/project/settings', { retries: 2 }, api.other.token)).status).toBe(200);

    const log = await events();
    const kinds = log.events.map((e) => e.kind);
    expect(kinds).toEqual([
      'project_settings.updated',
      'test_case.released',
      'test_case.quarantined',
      'test_case.steps_edited',
      'heal_proposal.rejected',
      'heal_proposal.accepted',
      'git_integration.deleted',
      'git_integration.updated',
      'git_integration.created',
      'sign_in.succeeded',
      'sign_in.failed',
      'token.revoked',
      'token.created',
    ]);
    expect(new Set(kinds)).toEqual(new Set(auditKinds));
    expect(log.total).toBe(auditKinds.length);
    const at = log.events.map((e) => Date.parse(e.at));
    expect(at).toEqual([...at].sort((a, b) => b - a));

    const byKind = Object.fromEntries(log.events.map((e) => [e.kind, e]));
    const viaApi = { type: 'token', id: callerTokenId };
    expect(byKind['project_settings.updated']).toMatchObject({
      actor: viaApi,
      details: { quarantine: { flakeRate: 0.3, minRuns: 5 } },
    });
    expect(byKind['test_case.quarantined']).toMatchObject({ actor: viaApi, subject: testCaseId });
    expect(byKind['heal_proposal.accepted']).toMatchObject({
      actor: viaApi,
      subject: testCaseId,
      details: { version: 2 },
    });
    expect(byKind['git_integration.updated']).toMatchObject({
      actor: viaApi,
      subject: gitlab.body.shortId,
      details: { fields: ['token'] },
    });
    expect(byKind['sign_in.succeeded']).toMatchObject({
      actor: { type: 'session', id: callerTokenId },
      clientAddress: '127.0.0.1',
    });
    expect(byKind['sign_in.failed']).toMatchObject({
      actor: { type: 'anonymous' },
      subject: revoked.id,
      details: { reason: 'token revoked' },
    });
    expect(byKind['token.created']).toMatchObject({
      actor: { type: 'cli' },
      subject: revoked.id,
      details: { name: 'laptop' },
    });

    const text = JSON.stringify(log);
    for (const secret of [api.tenant.token, revoked.token, 'glpat-secret-value', 'glpat-second-secret'])
      expect(text).not.toContain(secret);
    // The made-up token's failure belongs to no project; the other project sees only its own settings change.
    expect((await events('', api.other.token)).events.map((e) => e.kind)).toEqual(['project_settings.updated']);
  });

  it('filters by kind and time and pages, and refuses a bad filter with a 400', async () => {
    expect((await events('?kind=git_integration.updated')).events.map((e) => e.kind)).toEqual([
      'git_integration.updated',
    ]);
    const all = await events();
    const middle = all.events[5]!;
    const since = await events(`?since=${encodeURIComponent(middle.at)}`);
    expect(since.events.every((e) => Date.parse(e.at) >= Date.parse(middle.at))).toBe(true);
    expect(since.events.map((e) => e.kind)).toContain(middle.kind);
    expect((await events('?since=2999-01-01T00:00:00Z')).events).toEqual([]);

    const first = await events('?limit=5');
    const second = await events('?limit=5&offset=5');
    expect([first.events.length, second.events.length, first.total]).toEqual([5, 5, all.total]);
    expect([...first.events, ...second.events].map((e) => e.kind)).toEqual(all.events.slice(0, 10).map((e) => e.kind));

    for (const bad of ['?kind=everything', '?since=yesterday', '?limit=0', '?limit=201']) {
      const res = await api.call('GET', `/v1/audit-log${bad}`);
      expect(res.status, bad).toBe(400);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await api.call('GET', '/v1/audit-log', undefined, null)).status).toBe(401);
  });
});
