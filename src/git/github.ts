// GitProviderClient over GitHub's REST API, as a GitHub App (@octokit/app: the installation is looked up per
// repository, installation tokens are minted on demand and cached in memory until shortly before the expiry
// GitHub gave them, never stored) or with a token (a PAT or fine-grained token). `baseUrl` points it at GitHub
// Enterprise Server (`https://ghe.example.com/api/v3`) or, in tests, at a local fake.
import { App } from '@octokit/app';
import { Octokit } from '@octokit/rest';
import { CredentialsRefusedError, providerError } from './errors.js';
import { InstallationTokenCache } from './installation-token-cache.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { GitProviderClient } from './provider.js';
import type {
  ChangedFile,
  CommitStatusState,
  MergeRequestChange,
  MergeRequestRef,
  ReviewVerdict,
} from '../domain/git.js';

export const githubDefaultBaseUrl = 'https://api.github.com';

export type GitHubAuth = { kind: 'app'; appId: string; privateKey: string } | { kind: 'token'; token: string };

export interface GitHubClientOptions {
  auth: GitHubAuth;
  /** The REST API root; default `https://api.github.com`. */
  baseUrl?: string;
}

const userAgent = 'proctor-git-integration';

// Octokit logs every failed request at warn level; failures reach the caller as domain errors instead.
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

const reviewEvent: Record<ReviewVerdict, 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT'> = {
  Approved: 'APPROVE',
  'Changes Requested': 'REQUEST_CHANGES',
  Comment: 'COMMENT',
};

interface OctokitFailure {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

/** Runs one call and maps its failure once; `what` names what the call was about. */
async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as OctokitFailure;
    // Octokit reports a network failure as status 500 with no response; both are retryable.
    const status = typeof e.status === 'number' && e.response ? e.status : undefined;
    const data = e.response?.data as { message?: unknown } | undefined;
    const message =
      typeof data?.message === 'string' ? data.message : typeof e.message === 'string' ? e.message : String(err);
    const headers = Object.fromEntries(
      Object.entries(e.response?.headers ?? {}).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
    );
    throw providerError('github', what, { status, message, headers });
  }
}

function splitRepository(repository: string): { owner: string; repo: string } {
  const [owner, repo, ...rest] = repository.split('/');
  if (!owner || !repo || rest.length > 0)
    throw new InvalidError(`repository: a GitHub repository is owner/name, got "${repository}"`);
  return { owner, repo };
}

function toChangedFile(f: {
  filename: string;
  previous_filename?: string;
  status: string;
  additions: number;
  deletions: number;
  patch?: string;
}): ChangedFile {
  const status: ChangedFile['status'] =
    f.status === 'added' || f.status === 'copied'
      ? 'added'
      : f.status === 'removed'
        ? 'removed'
        : f.status === 'renamed'
          ? 'renamed'
          : 'modified';
  // GitHub sends no patch for binary files, nor for text diffs too large to show; only the latter count lines.
  // (A binary file renamed without changes reads as a plain rename, which is what a reviewer needs to know.)
  const binary = f.patch === undefined && f.additions === 0 && f.deletions === 0 && status !== 'renamed';
  return {
    path: f.filename,
    ...(f.previous_filename !== undefined && { previousPath: f.previous_filename }),
    status,
    additions: f.additions,
    deletions: f.deletions,
    binary,
    ...(f.patch !== undefined && { patch: f.patch }),
  };
}

export class GitHubClient implements GitProviderClient {
  readonly provider = 'github' as const;
  private readonly app?: App<{ Octokit: typeof Octokit }>;
  private readonly tokenOctokit?: Octokit;
  /** repository (lower case) → its installation's client; an installation outlives any one review. */
  private readonly installationOctokits = new Map<string, Promise<Octokit>>();

  constructor(options: GitHubClientOptions) {
    const OctokitWithBase = Octokit.defaults({
      baseUrl: (options.baseUrl ?? githubDefaultBaseUrl).replace(/\/+$/, ''),
      userAgent,
    });
    if (options.auth.kind === 'app') {
      // Installation tokens live in a cache that honours the expiry GitHub gave them (installation-token-cache.ts).
      const cache = new InstallationTokenCache();
      const AppOctokit = OctokitWithBase.defaults((o: ConstructorParameters<typeof Octokit>[0] = {}) =>
        o.auth && typeof o.auth === 'object' && !('cache' in o.auth) ? { ...o, auth: { ...o.auth, cache } } : o,
      );
      this.app = new App({
        appId: options.auth.appId,
        privateKey: options.auth.privateKey,
        Octokit: AppOctokit,
        log: silent,
      });
    } else {
      this.tokenOctokit = new OctokitWithBase({ auth: options.auth.token, log: silent });
    }
  }

  /** The client that acts on `repository`: the token's, or the App installation's on that repository. */
  private octokitFor(repository: string): Promise<Octokit> {
    if (this.tokenOctokit) return Promise.resolve(this.tokenOctokit);
    const app = this.app!;
    const key = repository.toLowerCase();
    let octokit = this.installationOctokits.get(key);
    if (!octokit) {
      const { owner, repo } = splitRepository(repository);
      octokit = call(`GitHub App installation on ${repository}`, () =>
        app.octokit.request('GET /repos/{owner}/{repo}/installation', { owner, repo }),
      ).then(({ data }) => app.getInstallationOctokit(data.id));
      // Concurrent first calls share one lookup; a failed one is forgotten so the next call asks again.
      this.installationOctokits.set(key, octokit);
      octokit.catch(() => this.installationOctokits.delete(key));
    }
    return octokit;
  }

  /**
   * Runs one call on `repository` and maps its failure. With an App, a 401 or 404 may mean the installation
   * changed (uninstalled and installed again: a new installation id, the old tokens revoked), so the call is made
   * once more with a fresh installation lookup and token before the failure stands. Public for the repository-file
   * calls of Git sync (github-files.ts), which keep this file to what reviews use.
   */
  async onRepo<T>(
    repository: string,
    what: string,
    fn: (octokit: Octokit, repo: { owner: string; repo: string }) => Promise<T>,
  ): Promise<T> {
    const target = splitRepository(repository);
    const octokit = await this.octokitFor(repository);
    try {
      return await call(what, () => fn(octokit, target));
    } catch (err) {
      if (!this.app || !(err instanceof NotFoundError || err instanceof CredentialsRefusedError)) throw err;
      this.installationOctokits.delete(repository.toLowerCase());
      const fresh = await this.octokitFor(repository);
      return call(what, () => fn(fresh, target));
    }
  }

  async fetchMergeRequest(ref: MergeRequestRef): Promise<MergeRequestChange> {
    const what = `Pull request ${ref.repository}#${ref.number}`;
    const pull = await this.onRepo(
      ref.repository,
      what,
      async (octokit, r) => (await octokit.rest.pulls.get({ ...r, pull_number: ref.number })).data,
    );
    const files = await this.onRepo(ref.repository, `${what} files`, (octokit, r) =>
      octokit.paginate(octokit.rest.pulls.listFiles, { ...r, pull_number: ref.number, per_page: 100 }),
    );
    return {
      ref,
      url: pull.html_url,
      title: pull.title,
      description: pull.body ?? '',
      author: pull.user?.login ?? '',
      sourceBranch: pull.head.ref,
      targetBranch: pull.base.ref,
      headSha: pull.head.sha,
      draft: pull.draft ?? false,
      state: pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
      files: files.map(toChangedFile),
    };
  }

  async createComment(ref: MergeRequestRef, body: string): Promise<{ id: string }> {
    const { data } = await this.onRepo(ref.repository, `Pull request ${ref.repository}#${ref.number}`, (octokit, r) =>
      octokit.rest.issues.createComment({ ...r, issue_number: ref.number, body }),
    );
    return { id: String(data.id) };
  }

  async updateComment(ref: MergeRequestRef, commentId: string, body: string): Promise<void> {
    await this.onRepo(ref.repository, `Comment ${commentId} on ${ref.repository}#${ref.number}`, (octokit, r) =>
      octokit.rest.issues.updateComment({ ...r, comment_id: Number(commentId), body }),
    );
  }

  async findPosted(ref: MergeRequestRef, marker: string): Promise<string | undefined> {
    const what = `Pull request ${ref.repository}#${ref.number}`;
    const comments = await this.onRepo(ref.repository, what, (octokit, r) =>
      octokit.paginate(octokit.rest.issues.listComments, { ...r, issue_number: ref.number, per_page: 100 }),
    );
    const comment = comments.find((c) => c.body?.includes(marker));
    if (comment) return String(comment.id);
    const reviews = await this.onRepo(ref.repository, what, (octokit, r) =>
      octokit.paginate(octokit.rest.pulls.listReviews, { ...r, pull_number: ref.number, per_page: 100 }),
    );
    const review = reviews.find((rv) => rv.body?.includes(marker));
    return review && String(review.id);
  }

  async findIssue(repository: string, marker: string): Promise<string | undefined> {
    // Pull requests are issues too on GitHub: only real issues count.
    const issues = await this.onRepo(repository, `Repository ${repository}`, (octokit, r) =>
      octokit.paginate(octokit.rest.issues.listForRepo, { ...r, state: 'all', per_page: 100 }),
    );
    return issues.find((i) => !i.pull_request && i.body?.includes(marker))?.html_url;
  }

  async createIssue(repository: string, issue: { title: string; body: string }): Promise<{ url: string }> {
    const { data } = await this.onRepo(repository, `Repository ${repository}`, (octokit, r) =>
      octokit.rest.issues.create({ ...r, title: issue.title, body: issue.body }),
    );
    return { url: data.html_url };
  }

  async postReview(
    ref: MergeRequestRef,
    review: { verdict: ReviewVerdict; body: string; headSha: string },
  ): Promise<{ id: string }> {
    const post = (event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT') =>
      this.onRepo(ref.repository, `Pull request ${ref.repository}#${ref.number}`, (octokit, r) =>
        octokit.rest.pulls.createReview({
          ...r,
          pull_number: ref.number,
          commit_id: review.headSha,
          body: review.body,
          event,
        }),
      );
    try {
      return { id: String((await post(reviewEvent[review.verdict])).data.id) };
    } catch (err) {
      // GitHub lets no one approve or request changes on their own pull request (a token of the PR's author):
      // the verdict still lands, as a comment review whose body states it.
      if (!(err instanceof InvalidError) || !/your own pull request/i.test(err.message)) throw err;
      return { id: String((await post('COMMENT')).data.id) };
    }
  }

  async setCommitStatus(
    ref: MergeRequestRef,
    sha: string,
    status: { state: CommitStatusState; description: string; targetUrl?: string; context: string },
  ): Promise<void> {
    await this.onRepo(ref.repository, `Commit ${sha} of ${ref.repository}`, (octokit, r) =>
      octokit.rest.repos.createCommitStatus({
        ...r,
        sha,
        state: status.state,
        // GitHub refuses a description over 140 characters.
        description: status.description.length > 140 ? `${status.description.slice(0, 139)}…` : status.description,
        context: status.context,
        ...(status.targetUrl !== undefined && { target_url: status.targetUrl }),
      }),
    );
  }

  async addEyesReaction(ref: MergeRequestRef, commentId?: string): Promise<void> {
    if (commentId !== undefined) {
      await this.onRepo(ref.repository, `Comment ${commentId} on ${ref.repository}#${ref.number}`, (octokit, r) =>
        octokit.rest.reactions.createForIssueComment({ ...r, comment_id: Number(commentId), content: 'eyes' }),
      );
    } else {
      await this.onRepo(ref.repository, `Pull request ${ref.repository}#${ref.number}`, (octokit, r) =>
        octokit.rest.reactions.createForIssue({ ...r, issue_number: ref.number, content: 'eyes' }),
      );
    }
  }
}
