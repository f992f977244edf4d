// Activities of the mergeRequestReview workflow: read settings and deployments, record the change review, and post
// on the merge request. Every post is keyed: the comment id is remembered under the key once posted, and a retry
// (after a provider outage or a worker crash) finds it and does not post again.
import type { ActivityDeps } from './deps.js';
import { deploymentsOf, postedComment, projectName, rememberComment } from '../src/db/queries/merge-requests.js';
import { Context } from '@temporalio/activity';
import {
  commitStatusContext,
  failedComment,
  postMarker,
  startedComment,
  verdictBody,
  verdictStatus,
  waitingComment,
  waitingOverComment,
  withMarker,
} from '../src/git/comments.js';
import type { GitProviderClient } from '../src/git/provider.js';
import type { MergeRequestRef } from '../src/domain/git.js';
import { recordChangeReview } from '../src/services/change-reviews.js';
import { gitClientFor } from '../src/services/git-clients.js';
import {
  decisionSettings,
  reviewOverrides,
  type ReviewDecisionSettings,
} from '../src/services/merge-request-reviews.js';
import type { ChangeReviewInput, ChangeReviewResult } from '../workflows/change-review-contract.js';
import type { MergeRequestHead, MergeRequestTrigger } from '../workflows/merge-request-review-contract.js';

/** This activity's attempt (1 outside an activity, as in a direct call). */
function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

interface Target {
  projectId: string;
  ref: MergeRequestRef;
}

export function createMergeRequestActivities(deps: ActivityDeps) {
  const { db } = deps;
  const ports = {
    gitClient: (projectId: string, ref: MergeRequestRef): Promise<GitProviderClient> =>
      gitClientFor(deps, projectId, ref),
  };

  /**
   * Posts once per key: the remembered id is returned on every later call. The body carries the key's marker, and a
   * retried attempt first looks for it on the merge request: an attempt that died after the provider took its
   * post, before the id was stored, must not post it twice.
   */
  async function once(
    client: GitProviderClient,
    ref: MergeRequestRef,
    key: string,
    body: string,
    post: (markedBody: string) => Promise<{ id: string }>,
  ): Promise<string> {
    const existing = await postedComment(db, key);
    if (existing) return existing;
    const marker = postMarker(key);
    const earlier = currentAttempt() > 1 ? await client.findPosted(ref, marker) : undefined;
    const id = earlier ?? (await post(withMarker(body, marker))).id;
    await rememberComment(db, key, id);
    return id;
  }

  return {
    async loadMergeRequestReviewSettings(input: Target): Promise<ReviewDecisionSettings | null> {
      return decisionSettings(deps, input.projectId, input.ref);
    },

    async deploymentsForCommit(input: { ref: MergeRequestRef; sha: string }): Promise<Record<string, string>> {
      return deploymentsOf(db, input.ref, input.sha);
    },

    /** The head as the provider has it now (a comment event does not say which commit is the latest). */
    async readMergeRequestHead(input: Target): Promise<MergeRequestHead> {
      const change = await (await ports.gitClient(input.projectId, input.ref)).fetchMergeRequest(input.ref);
      return {
        sha: change.headSha,
        url: change.url,
        draft: change.draft,
        sourceBranch: change.sourceBranch,
        title: change.title,
      };
    },

    /** Records the change review (a conversation of its own); the same key returns the same review. */
    async beginMergeRequestReview(
      input: Target & {
        head: MergeRequestHead;
        trigger: MergeRequestTrigger;
        deployments: Record<string, string>;
        idempotencyKey: string;
      },
    ): Promise<{ review: ChangeReviewInput; url: string }> {
      const { overrides, context } = await reviewOverrides(
        deps,
        input.projectId,
        input.ref,
        input.deployments,
        input.trigger.url,
      );
      const recorded = await recordChangeReview(
        deps,
        input.projectId,
        {
          mode: 'pr',
          prUrl: input.head.url,
          vcsProviderId: input.ref.provider,
          applicationOverrides: overrides,
          ...(context ? { context } : {}),
          metadata: {
            repository: input.ref.repository,
            branch: input.head.sourceBranch,
            commitHash: input.head.sha,
            trigger: input.trigger.event,
          },
        },
        { source: input.ref.provider, idempotencyKey: input.idempotencyKey, appUrl: deps.appUrl },
      );
      return { review: recorded.input, url: recorded.view.url };
    },

    /** One waiting comment per merge request: created the first time, edited in place for a newer head. */
    async postWaitingComment(
      input: Target & { head: MergeRequestHead; waitingFor: string[]; handle: string; key: string },
    ): Promise<void> {
      const client = await ports.gitClient(input.projectId, input.ref);
      const body = waitingComment(input);
      const existing = await postedComment(db, input.key);
      if (existing) await client.updateComment(input.ref, existing, body);
      else await once(client, input.ref, input.key, body, (marked) => client.createComment(input.ref, marked));
    },

    /** The start comment (once), the waiting comment edited, and on GitHub a pending status and 👀 on the trigger. */
    async announceMergeRequestReview(
      input: Target & {
        head: MergeRequestHead;
        trigger: MergeRequestTrigger;
        chatUrl: string;
        key: string;
        waitingKey?: string;
      },
    ): Promise<void> {
      const client = await ports.gitClient(input.projectId, input.ref);
      const started = startedComment({
        projectName: await projectName(db, input.projectId),
        ref: input.ref,
        head: input.head,
        trigger: input.trigger,
        chatUrl: input.chatUrl,
      });
      await once(client, input.ref, input.key, started, (marked) => client.createComment(input.ref, marked));
      const waiting = input.waitingKey ? await postedComment(db, input.waitingKey) : undefined;
      if (waiting)
        await client.updateComment(
          input.ref,
          waiting,
          waitingOverComment({ head: input.head, chatUrl: input.chatUrl }),
        );
      if (client.provider === 'github') {
        // Both are idempotent on GitHub (a status replaces the previous one under its context; a reaction is one per user).
        await client.setCommitStatus(input.ref, input.head.sha, {
          state: 'pending',
          description: 'Proctor is testing this change',
          targetUrl: input.chatUrl,
          context: commitStatusContext,
        });
        await client.addEyesReaction(input.ref, input.trigger.commentId);
      }
    },

    /** The verdict: a native review on GitHub (a note on GitLab) and, on GitHub, the final commit status. */
    async publishMergeRequestVerdict(
      input: Target & { headSha: string; result: ChangeReviewResult; key: string },
    ): Promise<void> {
      const client = await ports.gitClient(input.projectId, input.ref);
      await once(client, input.ref, input.key, verdictBody(input.result), (marked) =>
        client.postReview(input.ref, { verdict: input.result.verdict, body: marked, headSha: input.headSha }),
      );
      if (client.provider === 'github') {
        const status = verdictStatus[input.result.verdict];
        await client.setCommitStatus(input.ref, input.headSha, {
          ...status,
          targetUrl: input.result.url,
          context: commitStatusContext,
        });
      }
    },

    /** A review that ended without a verdict: superseded by a newer head (status only) or failed (said once). */
    async endMergeRequestReview(
      input: Target & { headSha: string; key: string; outcome: 'superseded' | 'failed'; reason?: string },
    ): Promise<void> {
      const client = await ports.gitClient(input.projectId, input.ref);
      if (input.outcome === 'failed') {
        const failed = failedComment({ headSha: input.headSha, reason: input.reason ?? 'unknown error' });
        await once(client, input.ref, input.key, failed, (marked) => client.createComment(input.ref, marked));
      }
      if (client.provider === 'github') {
        const description =
          input.outcome === 'superseded' ? 'Superseded by a newer commit' : 'Proctor could not finish the review';
        await client.setCommitStatus(input.ref, input.headSha, {
          state: 'error',
          description,
          context: commitStatusContext,
        });
      }
    },
  };
}
