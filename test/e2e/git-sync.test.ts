// Git sync on the real stack against the fake GitHub and GitLab: a real burn-in (scripted model, real Chromium,
// Temporal) proposes its file in a pull/merge request, never on the default branch; a push of the default branch
// (GitHub: a real push example signed with X-Hub-Signature-256; GitLab: a Push Hook with the hook's token) imports
// an edit made in the repository as the test's next version; a change on both sides is shown with both texts and
// overwrites neither; a broken file is reported with its line. The same story on each provider, one after the
// other on one project (saving the other provider's setting moves the sync).
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import type { FakeRepos } from '../support/fake-repos.js';
import { refOf, tool, type AgentMove } from '../support/agent-script.js';
import { loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitFor } from '../support/net.js';
import { deliverGitHub, deliverGitLab, githubExample, poster, type Post } from '../support/webhook-payloads.js';

/** One provider as the story needs it: its repositories, how it is connected, how it delivers a push. */
interface Provider {
  name: 'github' | 'gitlab';
  repo: string;
  repos: FakeRepos;
  /** The body of POST /v1/git-integrations. */
  integration: Record<string, unknown>;
  /** How many file writes (commits of one file) Proctor asked the provider for. */
  fileWrites(): number;
  /** Delivers a push of `sha` to main, authenticated with `credential` (default: the right one). */
  push(post: Post, sha: string, credential?: string): Promise<{ status: number }>;
}

const suffix = randomBytes(3).toString('hex');
const secret = `whsec-${randomUUID()}`;
let gh: FakeGitHub;
let gl: FakeGitLab;

function github(): Provider {
  const repo = `acme-${suffix}/shop`;
  const app = gh.addApp({ slug: 'proctor' });
  gh.addInstallation(app.appId, [repo]);
  return {
    name: 'github',
    repo,
    repos: gh.repos,
    fileWrites: () => gh.requests.filter((r) => r.route === 'repos.createOrUpdateFileContents').length,
    integration: {
      provider: 'github',
      auth: 'app',
      appId: String(app.appId),
      privateKey: app.privateKey,
      webhookSecret: secret,
      baseUrl: gh.url,
    },
    push(post, sha, credential = secret) {
      const payload = githubExample('push', (p) => typeof p.ref === 'string');
      Object.assign(payload, { ref: 'refs/heads/main', after: sha, deleted: false });
      payload.repository.full_name = repo;
      return deliverGitHub(post, credential, 'push', payload);
    },
  };
}

function gitlab(): Provider {
  const repo = `group-${suffix}/shop`;
  gl.addProject(repo);
  gl.addToken(`glpat-${suffix}`, [repo], 'proctor-bot');
  return {
    name: 'gitlab',
    repo,
    repos: gl.repos,
    fileWrites: () => gl.requests.filter((r) => r.route?.startsWith('repositoryFiles.') && r.method !== 'GET').length,
    integration: { provider: 'gitlab', token: `glpat-${suffix}`, baseUrl: gl.url },
    push(post, sha, credential) {
      // As GitLab documents its Push Hook; the token is the one Proctor set on the hook it created on save.
      const payload = {
        object_kind: 'push',
        event_name: 'push',
        before: '0'.repeat(40),
        after: sha,
        ref: 'refs/heads/main',
        checkout_sha: sha,
        user_username: 'alice',
        project: { id: 1, name: 'shop', path_with_namespace: repo, default_branch: 'main', web_url: gl.url },
        commits: [],
        total_commits_count: 1,
      };
      return deliverGitLab(post, credential ?? gl.hooks(repo)[0]!.token!, 'Push Hook', payload);
    },
  };
}

const shop = useShopStack();

/** The login burn-in, ending with a check of the cart link's text: the expected text a team edits in Git. */
const moves: AgentMove[] = [
  ...loginMoves.slice(0, -1),
  (r) =>
    tool('assert_text', {
      text: 'Cart (1)',
      ref: refOf(r, 'link "Cart (1)"'),
      description: 'The cart link counts one item',
    }),
  loginMoves.at(-1)!,
];

/** With `RECORD_HISTORIES=1`, keeps a finished gitSync workflow's history for test/workflows/replay.test.ts. */
async function record(workflowId: string, file: string): Promise<void> {
  if (!process.env.RECORD_HISTORIES) return;
  const handle = (await shop.stack.temporal.get()).workflow.getHandle(workflowId);
  await handle.result();
  writeFileSync(join('test/workflows/histories', file), historyToJSON(await handle.fetchHistory()));
}

beforeAll(async () => {
  [gh, gl] = await Promise.all([startFakeGitHub(), startFakeGitLab()]);
});
afterAll(async () => Promise.all([gh?.close(), gl?.close()]));

describe.each([
  ['GitHub', github, 'pull request'],
  ['GitLab', gitlab, 'merge request'],
] as const)('Git sync with %s', (_name, connect, request) => {
  let p: Provider;
  let repo: string;
  const folder = 'e2e/proctor';
  let testCaseId: string;
  let path: string;

  const call = (method: string, url: string, body?: unknown) => shop.stack.call(method, url, body);
  const status = async () => (await call('GET', '/v1/git-sync/status')).body;
  const fileOf = (p: string) => status().then((s) => s.files.find((f: any) => f.path === p));

  /** Pushes `sha` of main as the provider would and waits for its folder to be read. */
  async function push(sha: string, credential?: string) {
    const answer = await p.push(poster(shop.stack.app), sha, credential);
    if (answer.status !== 202) return { answer, result: undefined };
    const handle = (await shop.stack.temporal.get()).workflow.getHandle(
      workflowIds.gitSyncPull(shop.stack.tenant.projectId, sha),
    );
    return { answer, result: await handle.result() };
  }

  beforeAll(async () => {
    p = connect();
    repo = p.repo;
    p.repos.commit(repo, 'main', { 'README.md': '# Shop\n' }, 'Initial commit');
    const integration = await call('POST', '/v1/git-integrations', p.integration);
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  }, 60_000);

  it('refuses invalid settings with { message }, changing nothing', async () => {
    const bad = [
      { provider: p.name, repository: 'no-slash', folder },
      { provider: p.name, repository: repo, folder: '../outside' },
      { provider: p.name, repository: repo, folder: '/abs' },
      { provider: p.name, repository: repo, folder: 'a//b' },
      { provider: p.name, repository: repo, folder, branch: 'a..b' },
      { provider: p.name, repository: repo, folder: 'x'.repeat(201) },
      { provider: 'bitbucket', repository: repo, folder },
      { provider: p.name, repository: repo, folder, extra: true },
      // GitLab is connected only after GitHub's story: a setting for a provider the project has no integration for.
      ...(p.name === 'github' ? [{ provider: 'gitlab', repository: repo, folder }] : []),
    ];
    const before = await call('GET', '/v1/git-sync');
    for (const body of bad) {
      const res = await call('PUT', '/v1/git-sync', body);
      expect([400, 404], JSON.stringify(body)).toContain(res.status);
      expect(typeof res.body.message).toBe('string');
    }
    expect(await call('GET', '/v1/git-sync')).toEqual(before);
    const saved = await call('PUT', '/v1/git-sync', { provider: p.name, repository: repo, folder, branch: 'main' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ provider: p.name, repository: repo, folder, branch: 'main' });
    expect(saved.body.webhookUrl).toMatch(new RegExp(`/webhooks/${p.name}$`));
    // GitLab delivers pushes only to a project hook: saving created one with push events and Proctor's token.
    if (p.name === 'gitlab') expect(gl.hooks(repo)).toMatchObject([{ events: { push_events: true } }]);
  });

  it(`a burn-in opens a ${request} with the new file; a retry opens no second one`, async () => {
    const generated = await shop.burnIn('Login and add mug', loginGoal, moves);
    testCaseId = generated.id;
    await waitFor(async () => p.repos.requestsOf(repo).length === 1, 60_000, request);
    if (p.name === 'github')
      await record(workflowIds.gitSyncPropose(testCaseId, generated.steps.version), 'gitSync-propose.json');
    const [pull] = p.repos.requestsOf(repo);
    expect(pull).toMatchObject({ base: 'main', state: 'open', head: `proctor-sync-${testCaseId}` });
    path = `${folder}/login-and-add-mug.proctor.yaml`;
    const proposed = p.repos.file(repo, pull!.head, path)!;
    const exported = await call('GET', `/v1/test-cases/${testCaseId}/file`);
    expect(proposed).toBe(exported.body.file.replace(/\$schema=\S+/, '$schema=/schemas/test-case-file.json'));
    expect(proposed).toContain('{{SHOP_PASSWORD}}');
    // Never on the default branch: only a merge brings it there.
    expect(p.repos.file(repo, 'main', path)).toBeUndefined();
    expect(await fileOf(path)).toMatchObject({ state: 'pull_request', testCaseId, pullRequestUrl: expect.any(String) });

    // The same change proposed again (a retried activity) finds the branch, the file and the open request.
    const again = await shop.stack.activities.proposeTestCaseFile({
      projectId: shop.stack.tenant.projectId,
      testCaseId,
    });
    expect(again.outcome).toBe('open_pull_request');
    expect(p.repos.requestsOf(repo)).toHaveLength(1);
    expect(p.fileWrites()).toBe(1);
  }, 180_000);

  it(`the merged ${request} agrees; a merged edit of a step's expected text in the repository becomes the next steps version, and what replay checks`, async () => {
    const [pull] = p.repos.requestsOf(repo);
    const merged = p.repos.merge(repo, pull!.number);
    const first = await push(merged);
    if (p.name === 'github')
      await record(workflowIds.gitSyncPull(shop.stack.tenant.projectId, merged), 'gitSync-pull.json');
    expect(first.answer.status).toBe(202);
    expect(first.result).toMatchObject({ kind: 'pull', inSync: 1, imported: [], conflicts: [] });
    expect(await fileOf(path)).toMatchObject({ state: 'in_sync', base: p.repos.file(repo, 'main', path) });

    const before = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect((await shop.replay(testCaseId, { heal: false })).status).toBe('PASSED');
    // The team changes the expected text in the repository (a cart that now starts with two items, say).
    const file = parse(p.repos.file(repo, 'main', path)!);
    const check = file.steps.find((s: { action: string }) => s.action === 'assert_text');
    expect(check.value).toBe('Cart (1)');
    check.value = 'Cart (2)';
    const edited = p.repos.commit(repo, 'main', { [path]: stringify(file) }, 'Expect two items in the cart');
    const second = await push(edited);
    expect(second.result).toMatchObject({ imported: [path], conflicts: [] });
    const after = (await call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect(after.steps.version).toBe(before.steps.version + 1);
    expect(after.steps.steps.find((s: { action: string }) => s.action === 'assert_text').value).toBe('Cart (2)');
    // It is the test now: a replay checks the new text (the shop still shows one item, so it fails on it).
    const replayed = await shop.replay(testCaseId, { heal: false });
    expect(replayed.status).toBe('FAILED');
    expect(replayed.error).toContain('"Cart (2)"');
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
    await waitFor(async () => p.repos.requestsOf(repo).some((r) => r.state === 'open'), 60_000, 'the edit proposed');

    const file = parse(p.repos.file(repo, 'main', path)!);
    file.steps.at(-1).description = 'Changed in the repository';
    const theirsText = stringify(file);
    const sha = p.repos.commit(repo, 'main', { [path]: theirsText }, 'Reword in Git');
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
    expect(p.repos.file(repo, 'main', path)).toBe(theirsText);
  }, 120_000);

  it('a file that fails validation is reported with its line and reason, not imported; a bad signature is 401', async () => {
    const broken = `${folder}/broken.proctor.yaml`;
    const sha = p.repos.commit(repo, 'main', { [broken]: 'format: 1\nname: Broken\nsteps: 12\n' }, 'A broken file');
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

  it('agreeing again clears the conflict; a file added in the repository becomes a new test; a removed file is reported and the test kept', async () => {
    // The repository takes Proctor's text (a person resolved the conflict): both sides agree again.
    const ours = (await fileOf(path)).ours as string;
    const resolved = await push(p.repos.commit(repo, 'main', { [path]: ours }, "Take Proctor's text"));
    expect(resolved.result).toMatchObject({ conflicts: [] });
    expect(await fileOf(path)).toMatchObject({ state: 'in_sync', base: ours });

    // A test written in the repository (no `id`) becomes a new test case with its steps as version 1.
    const added = `${folder}/written-in-git.proctor.yaml`;
    const { id: _, ...file } = parse(ours);
    file.name = `Written in Git (${p.name})`;
    const total = (await call('GET', '/v1/test-cases')).body.total;
    const created = await push(p.repos.commit(repo, 'main', { [added]: stringify(file) }, 'A test from Git'));
    expect(created.result).toMatchObject({ imported: [added], conflicts: [] });
    const listed = (await call('GET', '/v1/test-cases?limit=100')).body;
    expect(listed.total).toBe(total + 1);
    const newTest = listed.testCases.find((t: any) => t.name === file.name);
    expect(newTest).toBeDefined();
    expect(await fileOf(added)).toMatchObject({ state: 'in_sync', testCaseId: newTest.id });

    // Removed in the repository: reported, the test case kept as it is.
    const removed = await push(p.repos.commit(repo, 'main', { [path]: null }, 'Remove the login test'));
    expect(removed.result).toMatchObject({ removed: [path], imported: [] });
    expect(await fileOf(path)).toMatchObject({ state: 'removed', reason: expect.stringMatching(/test case is kept/) });
    expect((await call('GET', `/v1/test-cases/${testCaseId}`)).status).toBe(200);
  }, 120_000);
});
