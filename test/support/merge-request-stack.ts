// A project connected to the fake GitHub (as a GitHub App) and the fake GitLab (a project access token), with
// merge-request review settings for one repository on each: what the merge-request e2e tests start from.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FakeGitHub } from './fake-github.js';
import type { FakeGitLab } from './fake-gitlab.js';
import {
  deliverGitHub,
  deliverGitLab,
  githubExample,
  type Delivered,
  type GitLabMr,
  type Payload,
  type Post,
} from './webhook-payloads.js';

type Caller = { call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> };

export interface Providers {
  appShortId: string;
  github: {
    repo: string;
    openPullRequest(n: number, sha: string, draft?: boolean): void;
    /** Delivers a real `pull_request` example payload, pointed at this repository, pull request and head, signed. */
    deliverPullRequest(post: Post, action: string, n: number, sha: string): Promise<Delivered>;
    /** Delivers a real successful `deployment_status` example payload for `sha`, signed. */
    deliverDeploymentStatus(post: Post, sha: string, environment: string, url: string): Promise<Delivered>;
  };
  gitlab: {
    repo: string;
    openMergeRequest(mr: GitLabMr): void;
    /** Delivers `payload` as GitLab's `event` hook does, with the token of the hook Proctor created on save. */
    deliver(post: Post, event: string, payload: Payload): Promise<Delivered>;
  };
}

const codeChange = {
  filename: 'src/cart/badge.ts',
  status: 'modified' as const,
  additions: 1,
  deletions: 1,
  patch: '@@ -1 +1 @@\n-export const max = 9;\n+export const max = 99;',
};

/**
 * Installs the fake GitHub's new App "proctor" on `githubRepo` and gives the fake GitLab the project `gitlabRepo` with
 * a token for it; returns the App and the git-integration bodies that connect each provider (the GitHub one with
 * `webhookSecret`).
 */
export function installOnFakeProviders(
  gh: FakeGitHub,
  gl: FakeGitLab,
  opts: { githubRepo: string; gitlabRepo: string; gitlabToken: string; gitlabUser?: string; webhookSecret: string },
) {
  const app = gh.addApp({ slug: 'proctor' });
  gh.addInstallation(app.appId, [opts.githubRepo]);
  gl.addProject(opts.gitlabRepo);
  gl.addToken(opts.gitlabToken, [opts.gitlabRepo], opts.gitlabUser);
  const github = {
    provider: 'github',
    auth: 'app',
    appId: String(app.appId),
    privateKey: app.privateKey,
    webhookSecret: opts.webhookSecret,
    baseUrl: gh.url,
  };
  const gitlab = { provider: 'gitlab', token: opts.gitlabToken, baseUrl: gl.url };
  return { app, integrations: { github, gitlab } };
}

export async function connectGitProviders(api: Caller, gh: FakeGitHub, gl: FakeGitLab): Promise<Providers> {
  const suffix = randomBytes(3).toString('hex');
  const githubRepo = `acme-${suffix}/shop`;
  const gitlabRepo = `group-${suffix}/shop`;
  const secret = `whsec-${randomUUID()}`;
  const { integrations } = installOnFakeProviders(gh, gl, {
    githubRepo,
    gitlabRepo,
    gitlabToken: `glpat-${suffix}`,
    gitlabUser: 'proctor-bot',
    webhookSecret: secret,
  });

  const must = async (method: string, path: string, body: unknown) => {
    const res = await api.call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await must('POST', '/v1/git-integrations', integrations.github);
  await must('POST', '/v1/git-integrations', integrations.gitlab);
  const appShortId = (await must('POST', '/v1/applications', { name: 'Shop' })).shortId as string;
  const settings = { environmentMapping: { preview: appShortId }, commentOnOpen: true };
  await must('PUT', '/v1/merge-request-review-settings', { provider: 'github', repository: githubRepo, ...settings });
  await must('PUT', '/v1/merge-request-review-settings', { provider: 'gitlab', repository: gitlabRepo, ...settings });

  const hookToken = () => gl.hooks(gitlabRepo)[0]!.token!;
  return {
    appShortId,
    github: {
      repo: githubRepo,
      openPullRequest: (n, sha, draft = false) =>
        void gh.addPullRequest(githubRepo, {
          number: n,
          title: 'Cart badge',
          body: 'Shows up to 99 items',
          headSha: sha,
          headRef: 'feature/cart',
          draft,
          files: [codeChange],
        }),
      deliverPullRequest(post, action, n, sha) {
        const payload = githubExample('pull_request', (e) => e.action === action);
        payload.number = n;
        payload.repository.full_name = githubRepo;
        Object.assign(payload.pull_request, {
          number: n,
          draft: false,
          title: 'Cart badge',
          html_url: `https://github.com/${githubRepo}/pull/${n}`,
        });
        Object.assign(payload.pull_request.head, { sha, ref: 'feature/cart' });
        return deliverGitHub(post, secret, 'pull_request', payload);
      },
      deliverDeploymentStatus(post, sha, environment, url) {
        const payload = githubExample('deployment_status', (e) => e.deployment_status.state === 'success');
        payload.repository.full_name = githubRepo;
        Object.assign(payload.deployment, { sha, environment });
        Object.assign(payload.deployment_status, { environment, target_url: url, environment_url: url });
        return deliverGitHub(post, secret, 'deployment_status', payload);
      },
    },
    gitlab: {
      repo: gitlabRepo,
      openMergeRequest: (mr) =>
        void gl.addMergeRequest(gitlabRepo, {
          iid: mr.iid,
          title: 'Cart badge',
          description: 'Shows up to 99 items',
          sha: mr.sha,
          sourceBranch: mr.branch ?? 'feature/cart',
          draft: mr.draft ?? false,
          files: [{ newPath: codeChange.filename, diff: codeChange.patch }],
        }),
      deliver: (post, event, payload) => deliverGitLab(post, hookToken(), event, payload),
    },
  };
}
