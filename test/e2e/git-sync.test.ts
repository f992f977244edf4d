// Git sync on the real stack against the fake GitHub: a real burn-in (scripted model, real Chromium, Temporal)
// proposes its file in a pull request, never on the default branch; a push of the default branch (a real push
// payload, signed as GitHub signs it) imports an edit made in the repository as the test's next version; a change
// on both sides is shown with both texts and overwrites neither; a broken file is reported with its line.
import { randomBytes, randomUUID } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitFor } from '../support/net.js';
import { deliverGitHub, githubExample, poster } from '../support/webhook-payloads.js';

describe('Git sync with GitHub', () => {
  const shop = useShopStack();
  let gh: FakeGitHub;
  const repo = `acme-${randomBytes(3).toString('hex')}/shop`;
  const secret = `whsec-${randomUUID()}`;
  const folder = 'e2e/proctor';
  let testCaseId: string;
  let path: string;

  const call = (method: string, url: string, body?: unknown) => shop.stack.call(method, url, body);
  const status = async () => (await call('GET', '/v1/git-sync/status')).body;
  const fileOf = (p: string) => status().then((s) => s.files.find((f: any) => f.path === p));

  /** Pushes `sha` of main as GitHub would (a real `push` example, signed) and waits for its folder to be read. */
  async function push(sha: string, sign = secret) {
    const payload = githubExample('push', (p) => p.ref === 'refs/heads/main' || typeof p.ref === 'string');
    Object.assign(payload, { ref: 'refs/heads/main', after: sha, deleted: false });
    payload.repository.full_name = repo;
    const answer = await deliverGitHub(poster(shop.stack.app), sign, 'push', payload);
    if (answer.status !== 202) return { answer, result: undefined };
    const handle = (await shop.stack.temporal.get()).workflow.getHandle(
      workflowIds.gitSyncPull(shop.stack.tenant.projectId, sha),
    );
    return { answer, result: await handle.result() };
  }

  beforeAll(async () => {
    gh = await startFakeGitHub();
    const app = gh.addApp({ slug: 'proctor' });
    gh.addInstallation(app.appId, [repo]);
    gh.repos.commit(repo, 'main', { 'README.md': '# Shop\n' }, 'Initial commit');
    const integration = await call('POST', '/v1/git-integrations', {
      provider: 'github',
      auth: 'app',
      appId: String(app.appId),
      privateKey: app.privateKey,
      webhookSecret: secret,
      baseUrl: gh.url,
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  }, 60_000);
  afterAll(async () => gh?.close());

  it('refuses invalid settings with { message }, changing nothing', async () => {
    const bad = [
      { provider: 'github', repository: 'no-slash', folder },
      { provider: 'github', repository: repo, folder: '../outside' },
      { provider: 'github', repository: repo, folder: '/abs' },
      { provider: 'github', repository: repo, folder, branch: 'a..b' },
      { provider: 'bitbucket', repository: repo, folder },
      { provider: 'gitlab', repository: repo, folder }, // no GitLab integration in this project
      { provider: 'github', repository: repo, folder, extra: true },
    ];
    for (const body of bad) {
      const res = await call('PUT', '/v1/git-sync', body);
      expect([400, 404], JSON.stringify(body)).toContain(res.status);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await call('GET', '/v1/git-sync')).status).toBe(404);
    const saved = await call('PUT', '/v1/git-sync', { provider: 'github', repository: repo, folder, branch: 'main' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ provider: 'github', repository: repo, folder, branch: 'main' });
    expect(saved.body.webhookUrl).toMatch(/\/webhooks\/github$/);
  });

  it('a burn-in opens a pull request with the new file; a retry opens no second one', async () => {
    const generated = await shop.burnIn('Login and add mug', loginGoal, loginMoves);
    testCaseId = generated.id;
    await waitFor(async () => gh.repos.requestsOf(repo).length === 1, 60_000, 'the pull request');
    const [pull] = gh.repos.requestsOf(repo);
    expect(pull).toMatchObject({ base: 'main', state: 'open', head: `proctor-sync-${testCaseId}` });
    path = `${folder}/login-and-add-mug.proctor.yaml`;
    const proposed = gh.repos.file(repo, pull!.head, path)!;
    const exported = await call('GET', `/v1/test-cases/${testCaseId}/file`);
    expect(proposed).toBe(exported.body.file.replace(/\$schema=\S+/, '$schema=/schemas/test-case-file.json'));
    expect(proposed).toContain('{{SHOP_PASSWORD}}');
    // Never on the default branch: only a merge brings it there.
    expect(gh.repos.file(repo, 'main', path)).toBeUndefined();
    expect(await fileOf(path)).toMatchObject({ state: 'pull_request', testCaseId, pullRequestUrl: expect.any(String) });

    // The same change proposed again (a retried activity) finds the branch, the file and the open request.
    const again = await shop.stack.activities.proposeTestCaseFile({
      projectId: shop.stack.tenant.projectId,
      testCaseId,
    });
    expect(again.outcome).toBe('open_pull_request');
    expect(gh.repos.requestsOf(repo)).toHaveLength(1);
    expect(gh.requests.filter((r) => r.route === 'repos.createOrUpdateFileContents')).toHaveLength(1);
  }, 180_000);

  it('the merged pull request agrees; a merged edit of a step in the repository becomes the next steps version', async () => {
    const [pull] = gh.repos.requestsOf(repo);
    const merged = gh.repos.merge(repo, pull!.number);
    const first = await push(merged);
    expect(first.answer.status).toBe(202);
    expect(first.result).toMatchObject({ kind: 'pull', inSync: 1, imported: [], conflicts: [] });
    expect(await fileOf(path)).toMatchObject({ state: 'in_sync', base: gh.repos.file(repo, 'main', path) });

    const before = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    const file = parse(gh.repos.file(repo, 'main', path)!);
    const last = file.steps.at(-1);
    last.description = 'The cart link says one item is in it';
    const edited = gh.repos.commit(repo, 'main', { [path]: stringify(file) }, 'Reword the cart check');
    const second = await push(edited);
    expect(second.result).toMatchObject({ imported: [path], conflicts: [] });
    const after = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect(after.steps.version).toBe(before.steps.version + 1);
    expect(after.steps.steps.at(-1).description).toBe('The cart link says one item is in it');
    // Agreed again: nothing is proposed back.
    expect(await fileOf(path)).toMatchObject({ state: 'in_sync' });
    const proposedAgain = await shop.stack.activities.proposeTestCaseFile({
      projectId: shop.stack.tenant.projectId,
      testCaseId,
    });
    expect(proposedAgain.outcome).toBe('in_sync');
  }, 120_000);

  it('a change on both sides is a conflict with both texts, and neither side is overwritten', async () => {
    const current = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    const steps = structuredClone(current.steps.steps);
    steps.at(-1).description = 'Changed in Proctor';
    const saved = await call('PUT', `/v1/test-cases/${testCaseId}/steps`, {
      basedOnVersion: current.steps.version,
      steps,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // The edit is proposed: the pull request from Proctor's branch is opened again.
    await waitFor(async () => gh.repos.requestsOf(repo).some((r) => r.state === 'open'), 60_000, 'the edit proposed');

    const file = parse(gh.repos.file(repo, 'main', path)!);
    file.steps.at(-1).description = 'Changed in the repository';
    const theirsText = stringify(file);
    const sha = gh.repos.commit(repo, 'main', { [path]: theirsText }, 'Reword in Git');
    const pushed = await push(sha);
    expect(pushed.result).toMatchObject({ conflicts: [path], imported: [] });

    const shown = await status();
    expect(shown.conflicts).toBe(1);
    const conflict = shown.files.find((f: any) => f.path === path);
    expect(conflict.state).toBe('conflict');
    expect(conflict.reason).toMatch(/changed in Proctor and in the repository/);
    expect(conflict.ours).toContain('Changed in Proctor');
    expect(conflict.theirs).toContain('Changed in the repository');
    // Neither side written: Proctor keeps its steps, the default branch keeps the repository's text.
    const after = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect(after.steps.version).toBe(current.steps.version + 1);
    expect(after.steps.steps.at(-1).description).toBe('Changed in Proctor');
    expect(gh.repos.file(repo, 'main', path)).toBe(theirsText);
  }, 120_000);

  it('a file that fails validation is reported with its line and reason, not imported; a bad signature is 401', async () => {
    const broken = `${folder}/broken.proctor.yaml`;
    const sha = gh.repos.commit(repo, 'main', { [broken]: 'format: 1\nname: Broken\nsteps: 12\n' }, 'A broken file');
    const testCases = (await call('GET', '/v1/test-cases')).body.total;
    const pushed = await push(sha);
    expect(pushed.result).toMatchObject({ invalid: [broken], imported: [] });
    const refused = await fileOf(broken);
    expect(refused.state).toBe('invalid');
    expect(refused.reason).toMatch(/^line \d+, column \d+: /);
    expect((await call('GET', '/v1/test-cases')).body.total).toBe(testCases);

    const forged = await push(sha, 'not-the-secret');
    expect(forged.answer.status).toBe(401);
  }, 120_000);
});
