// GitProviderClient over GitLab's REST API (@gitbeaker/rest) with a project or group access token. `baseUrl` is
// the instance (`https://gitlab.com`, a self-managed host, or a local fake in tests); projects are addressed by
// their path (`group/sub/project`), which gitbeaker URL-encodes. Each request is made once (gitlab-requester.ts):
// a failure surfaces at once, mapped by providerError, and the activity's retry policy decides on another try.
import { Gitlab, GitbeakerRequestError, GitbeakerRetryError, GitbeakerTimeoutError } from '@gitbeaker/rest';
import { providerError } from './errors.js';
import { singleAttemptRequester } from './gitlab-requester.js';
import { NotFoundError } from '../domain/errors.js';
import type { GitProviderClient } from './provider.js';
import type {
  ChangedFile,
  CommitStatusState,
  MergeRequestChange,
  MergeRequestRef,
  ReviewVerdict,
} from '../domain/git.js';

export const gitlabDefaultBaseUrl = 'https://gitlab.com';

export interface GitLabClientOptions {
  token: string;
  /** The instance URL (not the API root); default `https://gitlab.com`. */
  baseUrl?: string;
}

/** The webhook events a project hook can deliver that Proctor listens to. */
export type GitLabHookEvent = 'merge_requests' | 'notes' | 'deployments' | 'pipelines' | 'push';

export interface ProjectWebhook {
  /** The Proctor endpoint GitLab posts to. */
  url: string;
  /** Sent back by GitLab as `X-Gitlab-Token` on every delivery. */
  secret: string;
  events: GitLabHookEvent[];
}

const hookOption: Record<
  GitLabHookEvent,
  'mergeRequestsEvents' | 'noteEvents' | 'deploymentEvents' | 'pipelineEvents' | 'pushEvents'
> = {
  merge_requests: 'mergeRequestsEvents',
  notes: 'noteEvents',
  deployments: 'deploymentEvents',
  pipelines: 'pipelineEvents',
  push: 'pushEvents',
};

const gitlabState: Record<CommitStatusState, 'pending' | 'success' | 'failed'> = {
  pending: 'pending',
  success: 'success',
  failure: 'failed',
  error: 'failed',
};

/** Runs one call and maps its failure to a domain error naming `what`. */
export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GitbeakerRetryError || err instanceof GitbeakerTimeoutError)
      throw providerError('gitlab', what, { message: err.message });
    if (err instanceof GitbeakerRequestError && err.cause?.response) {
      const { response, description } = err.cause;
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      throw providerError('gitlab', what, { status: response.status, message: description, headers });
    }
    // fetch itself failed: the instance could not be reached.
    throw providerError('gitlab', what, { message: err instanceof Error ? err.message : String(err) });
  }
}

/** True for a failure this call may treat as done: GitLab refusing to repeat what already happened. */
function alreadyDone(err: unknown, phrase: RegExp): boolean {
  return err instanceof Error && phrase.test(err.message);
}

const countLines = (diff: string, sign: '+' | '-') => diff.split('\n').filter((line) => line.startsWith(sign)).length;

function toChangedFile(d: {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
}): ChangedFile {
  const status: ChangedFile['status'] = d.new_file
    ? 'added'
    : d.deleted_file
      ? 'removed'
      : d.renamed_file
        ? 'renamed'
        : 'modified';
  // GitLab diffs carry no file headers and no line counts, and a binary file's diff is a one-line notice.
  const binary = /^Binary files .* differ\s*$/.test(d.diff);
  const patch = binary || d.diff === '' ? undefined : d.diff;
  return {
    path: d.new_path,
    ...(d.renamed_file && { previousPath: d.old_path }),
    status,
    additions: patch ? countLines(patch, '+') : 0,
    deletions: patch ? countLines(patch, '-') : 0,
    binary,
    ...(patch !== undefined && { patch }),
  };
}

export class GitLabClient implements GitProviderClient {
  readonly provider = 'gitlab' as const;
  /** The REST client; Git sync's repository-file calls (gitlab-files.ts) use it with `call`. */
  readonly api: InstanceType<typeof Gitlab<false>>;

  constructor(options: GitLabClientOptions) {
    this.api = new Gitlab({
      host: (options.baseUrl ?? gitlabDefaultBaseUrl).replace(/\/+$/, ''),
      token: options.token,
      queryTimeout: 30_000,
      requesterFn: singleAttemptRequester,
    });
  }

  async fetchMergeRequest(ref: MergeRequestRef): Promise<MergeRequestChange> {
    const what = `Merge request ${ref.repository}!${ref.number}`;
    const mr = await call(what, () => this.api.MergeRequests.show(ref.repository, ref.number));
    const diffs = await call(`${what} diffs`, () =>
      this.api.MergeRequests.allDiffs(ref.repository, ref.number, { perPage: 100 }),
    ).catch(async (err: unknown) => {
      // GitLab before 15.7 has no paged `/diffs`; its `/changes` carries the same entries in one answer.
      if (!(err instanceof NotFoundError)) throw err;
      return (await call(`${what} changes`, () => this.api.MergeRequests.showChanges(ref.repository, ref.number)))
        .changes;
    });
    return {
      ref,
      url: mr.web_url,
      title: mr.title,
      description: mr.description ?? '',
      author: mr.author.username,
      sourceBranch: mr.source_branch,
      targetBranch: mr.target_branch,
      headSha: mr.sha,
      draft: mr.draft ?? mr.work_in_progress ?? false,
      state: mr.state === 'merged' ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
      files: diffs.map(toChangedFile),
    };
  }

  async createComment(ref: MergeRequestRef, body: string): Promise<{ id: string }> {
    const note = await call(`Merge request ${ref.repository}!${ref.number}`, () =>
      this.api.MergeRequestNotes.create(ref.repository, ref.number, body),
    );
    return { id: String(note.id) };
  }

  async updateComment(ref: MergeRequestRef, commentId: string, body: string): Promise<void> {
    await call(`Note ${commentId} on ${ref.repository}!${ref.number}`, () =>
      this.api.MergeRequestNotes.edit(ref.repository, ref.number, Number(commentId), { body }),
    );
  }

  async findPosted(ref: MergeRequestRef, marker: string): Promise<string | undefined> {
    const notes = await call(`Merge request ${ref.repository}!${ref.number}`, () =>
      this.api.MergeRequestNotes.all(ref.repository, ref.number, { perPage: 100 }),
    );
    const note = notes.find((n) => typeof n.body === 'string' && n.body.includes(marker));
    return note && String(note.id);
  }

  async findIssue(repository: string, marker: string): Promise<string | undefined> {
    const issues = await call(`Project ${repository}`, () =>
      this.api.Issues.all({ projectId: repository, search: marker, in: 'description', perPage: 100, maxPages: 5 }),
    );
    const found = issues.find((i) => typeof i.description === 'string' && i.description.includes(marker));
    return found && String(found.web_url);
  }

  async createIssue(repository: string, issue: { title: string; body: string }): Promise<{ url: string }> {
    const created = await call(`Project ${repository}`, () =>
      this.api.Issues.create(repository, issue.title, { description: issue.body }),
    );
    return { url: String(created.web_url) };
  }

  /** GitLab has no review verdict to post: the review is a note, whose body carries the verdict. */
  async postReview(
    ref: MergeRequestRef,
    review: { verdict: ReviewVerdict; body: string; headSha: string },
  ): Promise<{ id: string }> {
    return this.createComment(ref, review.body);
  }

  async setCommitStatus(
    ref: MergeRequestRef,
    sha: string,
    status: { state: CommitStatusState; description: string; targetUrl?: string; context: string },
  ): Promise<void> {
    try {
      await call(`Commit ${sha} of ${ref.repository}`, () =>
        this.api.Commits.editStatus(ref.repository, sha, gitlabState[status.state], {
          name: status.context,
          description: status.description,
          ...(status.targetUrl !== undefined && { targetUrl: status.targetUrl }),
        }),
      );
    } catch (err) {
      // A retried call repeating the state the status already has: GitLab refuses the transition, the status stands.
      if (!alreadyDone(err, /Cannot transition status/i)) throw err;
    }
  }

  async addEyesReaction(ref: MergeRequestRef, commentId?: string): Promise<void> {
    try {
      if (commentId !== undefined) {
        await call(`Note ${commentId} on ${ref.repository}!${ref.number}`, () =>
          this.api.MergeRequestNoteAwardEmojis.award(ref.repository, ref.number, Number(commentId), 'eyes'),
        );
      } else {
        await call(`Merge request ${ref.repository}!${ref.number}`, () =>
          this.api.MergeRequestAwardEmojis.award(ref.repository, ref.number, 'eyes'),
        );
      }
    } catch (err) {
      if (!alreadyDone(err, /has already been taken/i)) throw err;
    }
  }

  /**
   * Creates the project hook that delivers `events` to `url` with `secret`, or refreshes the one already pointing
   * at `url` (new secret, events set exactly as asked), so saving settings twice leaves one hook.
   */
  async ensureProjectWebhook(repository: string, hook: ProjectWebhook): Promise<{ id: number; created: boolean }> {
    const what = `Webhooks of ${repository}`;
    const options = {
      token: hook.secret,
      enableSslVerification: true,
      ...Object.fromEntries(
        (Object.keys(hookOption) as GitLabHookEvent[]).map((event) => [hookOption[event], hook.events.includes(event)]),
      ),
    };
    const existing = (await call(what, () => this.api.ProjectHooks.all(repository, { perPage: 100 }))).find(
      (h) => h.url === hook.url,
    );
    if (existing) {
      await call(what, () => this.api.ProjectHooks.edit(repository, existing.id, hook.url, options));
      return { id: existing.id, created: false };
    }
    const created = await call(what, () => this.api.ProjectHooks.add(repository, hook.url, options));
    return { id: created.id, created: true };
  }
}
