// Webhook payloads of GitHub and GitLab, read down to what merge-request review needs. Only the fields used are
// checked (zod, loosely): providers add fields all the time, and an event Proctor does not act on is ignored.
import { z } from 'zod';
import { parseMention } from '../domain/merge-requests.js';
import type { MergeRequestEvent, MergeRequestHead } from '../../workflows/merge-request-review-contract.js';

/** An event without its delivery id, addressed to one merge request; the API adds the delivery id. */
export type MergeRequestEventBody = MergeRequestEvent extends infer E
  ? E extends MergeRequestEvent
    ? Omit<E, 'deliveryId'>
    : never
  : never;

/** The events that carry the merge request's head commit. */
export type HeadEventType = Extract<MergeRequestEvent, { head: MergeRequestHead }>['type'];

export type ParsedDelivery =
  | { kind: 'mergeRequest'; number: number; event: { type: HeadEventType; head: MergeRequestHead }; open: boolean }
  | { kind: 'deployment'; sha: string; environment: string; url: string }
  | { kind: 'mention'; number: number; commentId: string; text: string; author: string; head?: MergeRequestHead }
  | { kind: 'ignored'; reason: string };

/** The repository a delivery is about (`owner/name`, GitLab's `path_with_namespace`), read before verifying it. */
export function repositoryOf(provider: 'github' | 'gitlab', payload: unknown): string | null {
  const schema =
    provider === 'github'
      ? z.object({ repository: z.object({ full_name: z.string().min(1) }) }).transform((p) => p.repository.full_name)
      : z
          .object({ project: z.object({ path_with_namespace: z.string().min(1) }) })
          .transform((p) => p.project.path_with_namespace);
  const parsed = schema.safeParse(payload);
  return parsed.success ? parsed.data : null;
}

// --- GitHub ------------------------------------------------------------------------------------------------------

const githubPullRequest = z.object({
  action: z.string(),
  number: z.number().int(),
  pull_request: z.object({
    html_url: z.string(),
    title: z.string(),
    draft: z.boolean().optional(),
    head: z.object({ sha: z.string(), ref: z.string() }),
  }),
});
const githubActions: Record<string, HeadEventType> = {
  opened: 'opened',
  synchronize: 'updated',
  reopened: 'reopened',
  ready_for_review: 'ready_for_review',
  converted_to_draft: 'converted_to_draft',
  closed: 'closed',
};
const githubDeploymentStatus = z.object({
  deployment_status: z.object({
    state: z.string(),
    target_url: z.string().nullish(),
    environment_url: z.string().nullish(),
    environment: z.string().nullish(),
  }),
  deployment: z.object({ sha: z.string(), environment: z.string() }),
});
const githubIssueComment = z.object({
  action: z.string(),
  issue: z.object({ number: z.number().int(), pull_request: z.object({}).passthrough().nullish() }),
  comment: z.object({
    id: z.number(),
    body: z.string().nullish(),
    user: z.object({ login: z.string(), type: z.string().optional() }),
  }),
});

export function parseGitHubDelivery(event: string, payload: unknown): ParsedDelivery {
  switch (event) {
    case 'pull_request': {
      const p = githubPullRequest.safeParse(payload);
      if (!p.success) return { kind: 'ignored', reason: 'not a pull request payload' };
      const type = githubActions[p.data.action];
      if (!type) return { kind: 'ignored', reason: `pull request action ${p.data.action}` };
      const pr = p.data.pull_request;
      return {
        kind: 'mergeRequest',
        number: p.data.number,
        open: type !== 'closed',
        event: {
          type,
          head: {
            sha: pr.head.sha,
            url: pr.html_url,
            draft: pr.draft ?? false,
            sourceBranch: pr.head.ref,
            title: pr.title,
          },
        },
      };
    }
    case 'deployment_status': {
      const p = githubDeploymentStatus.safeParse(payload);
      if (!p.success) return { kind: 'ignored', reason: 'not a deployment status payload' };
      const status = p.data.deployment_status;
      const url = status.target_url || status.environment_url;
      if (status.state !== 'success') return { kind: 'ignored', reason: `deployment ${status.state}` };
      if (!url) return { kind: 'ignored', reason: 'a successful deployment without a URL' };
      return {
        kind: 'deployment',
        sha: p.data.deployment.sha,
        environment: status.environment || p.data.deployment.environment,
        url,
      };
    }
    case 'issue_comment': {
      const p = githubIssueComment.safeParse(payload);
      if (!p.success) return { kind: 'ignored', reason: 'not a comment payload' };
      if (p.data.action !== 'created') return { kind: 'ignored', reason: `comment ${p.data.action}` };
      if (!p.data.issue.pull_request) return { kind: 'ignored', reason: 'a comment on an issue, not a pull request' };
      // Bots (Proctor's own comments included) never trigger a review.
      if (p.data.comment.user.type === 'Bot') return { kind: 'ignored', reason: 'a comment by a bot' };
      return {
        kind: 'mention',
        number: p.data.issue.number,
        commentId: String(p.data.comment.id),
        text: p.data.comment.body ?? '',
        author: p.data.comment.user.login,
      };
    }
    default:
      return { kind: 'ignored', reason: `event ${event}` };
  }
}

// --- GitLab ------------------------------------------------------------------------------------------------------

const gitlabCommitHead = z.object({
  iid: z.number().int(),
  url: z.string(),
  title: z.string(),
  source_branch: z.string(),
  draft: z.boolean().optional(),
  work_in_progress: z.boolean().optional(),
  last_commit: z.object({ id: z.string() }),
});
const headOf = (mr: z.infer<typeof gitlabCommitHead>): MergeRequestHead => ({
  sha: mr.last_commit.id,
  url: mr.url,
  draft: mr.draft ?? mr.work_in_progress ?? false,
  sourceBranch: mr.source_branch,
  title: mr.title,
});
const gitlabMergeRequest = z.object({
  object_attributes: gitlabCommitHead.extend({ action: z.string().optional(), oldrev: z.string().optional() }),
  changes: z
    .object({ draft: z.object({ current: z.boolean() }).optional() })
    .passthrough()
    .optional(),
});
const gitlabNote = z.object({
  user: z.object({ username: z.string(), bot: z.boolean().optional() }).passthrough(),
  object_attributes: z.object({ id: z.number(), note: z.string(), noteable_type: z.string() }),
  merge_request: gitlabCommitHead.optional(),
});
const gitlabDeployment = z.object({
  status: z.string(),
  environment: z.string(),
  environment_external_url: z.string().nullish(),
  short_sha: z.string(),
  commit_url: z.string().nullish(),
});

function gitlabMergeRequestType(p: z.infer<typeof gitlabMergeRequest>): HeadEventType | null {
  switch (p.object_attributes.action) {
    case 'open':
      return 'opened';
    case 'reopen':
      return 'reopened';
    case 'close':
    case 'merge':
      return 'closed';
    case 'update': {
      const draft = p.changes?.draft;
      if (draft) return draft.current ? 'converted_to_draft' : 'ready_for_review';
      // Any other update (title, labels, new commits): the head decides whether anything changed.
      return 'updated';
    }
    default:
      return null;
  }
}

export function parseGitLabDelivery(event: string, payload: unknown): ParsedDelivery {
  switch (event) {
    case 'Merge Request Hook': {
      const p = gitlabMergeRequest.safeParse(payload);
      if (!p.success) return { kind: 'ignored', reason: 'not a merge request payload' };
      const type = gitlabMergeRequestType(p.data);
      if (!type)
        return { kind: 'ignored', reason: `merge request action ${p.data.object_attributes.action ?? 'none'}` };
      return {
        kind: 'mergeRequest',
        number: p.data.object_attributes.iid,
        open: type !== 'closed',
        event: { type, head: headOf(p.data.object_attributes) },
      };
    }
    case 'Note Hook': {
      const p = gitlabNote.safeParse(payload);
      if (!p.success || p.data.object_attributes.noteable_type !== 'MergeRequest' || !p.data.merge_request)
        return { kind: 'ignored', reason: 'not a merge request note' };
      if (p.data.user.bot) return { kind: 'ignored', reason: 'a note by a bot' };
      return {
        kind: 'mention',
        number: p.data.merge_request.iid,
        commentId: String(p.data.object_attributes.id),
        text: p.data.object_attributes.note,
        author: p.data.user.username,
        head: headOf(p.data.merge_request),
      };
    }
    case 'Deployment Hook': {
      const p = gitlabDeployment.safeParse(payload);
      if (!p.success) return { kind: 'ignored', reason: 'not a deployment payload' };
      if (p.data.status !== 'success') return { kind: 'ignored', reason: `deployment ${p.data.status}` };
      if (!p.data.environment_external_url)
        return { kind: 'ignored', reason: 'a successful deployment without an environment URL' };
      // The payload names the commit by short sha; its commit URL ends with the full one.
      const full = /\/commit\/([0-9a-f]{40})\b/.exec(p.data.commit_url ?? '')?.[1];
      return {
        kind: 'deployment',
        sha: full ?? p.data.short_sha,
        environment: p.data.environment,
        url: p.data.environment_external_url,
      };
    }
    default:
      return { kind: 'ignored', reason: `event ${event}` };
  }
}

/** A comment becomes a manual trigger only when it mentions the handle with a URL. */
export function mentionEvent(
  parsed: Extract<ParsedDelivery, { kind: 'mention' }>,
  handle: string,
): MergeRequestEventBody | null {
  const mention = parseMention(parsed.text, handle);
  if (!mention) return null;
  return {
    type: 'mention',
    commentId: parsed.commentId,
    url: mention.url,
    author: parsed.author,
    ...(parsed.head ? { head: parsed.head } : {}),
  };
}
