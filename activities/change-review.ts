// The change review's activities: read the change (fetched once and kept), show progress, let the model choose
// tests, create new ones with stable ids, write the run, read its results, let the model word the verdict, and
// end the review. Each is safe to retry: writes are keyed by the review. Reading the run's results is
// change-review-results.ts.
import type { ActivityDeps } from './deps.js';
import { withHeartbeats } from './heartbeat.js';
import {
  completeReview,
  endReview,
  findChangeReview,
  saveChange,
  setReviewPhase,
  setReviewRun,
  type ChangeReviewRecord,
  type StoredChange,
} from '../src/db/queries/change-reviews.js';
import { chatShortIdById, linkRun, setTitleIfMissing } from '../src/db/queries/chats.js';
import { finishReply, writePartialReply } from '../src/db/queries/chat-turns.js';
import { getTestCaseRecord } from '../src/db/queries/test-cases.js';
import type { ChangeReviewPhase } from '../src/domain/change-review.js';
import type { ReviewTableRow } from '../src/domain/change-review-reply.js';
import type { ApplicationOverride } from '../src/domain/precedence.js';
import { parseMergeRequestUrl } from '../src/git/urls.js';
import { gitClientFor } from '../src/services/git-clients.js';
import {
  changeReviewLabel,
  selectReviewTests,
  type ReviewNewTest,
  type ReviewSelection,
} from '../src/services/review-test-selection.js';
import { findOverrideTarget } from '../src/services/application-overrides.js';
import { titleFrom } from '../src/domain/chat.js';
import { parseUnifiedDiff } from '../src/domain/diff.js';
import { selectTests, writeVerdict, type VerdictDraft } from '../src/llm/change-review.js';
import type { Llm } from '../src/llm/client.js';
import { llmFor } from './llm-usage.js';
import { chatRunConcurrency } from '../src/services/chat-tools.js';
import { InvalidError, LlmNotConfiguredError, NotFoundError } from '../src/domain/errors.js';
import { createTestCasesRun } from '../src/services/runs.js';
import { writeTestCase } from '../src/services/test-cases.js';
import type { ChangeReviewTestResult } from '../workflows/change-review-contract.js';
import { percent } from '../src/domain/review-visual.js';

export type { ReviewNewTest, ReviewSelection };

/** One test's result as the verdict model reads it: the facts the review's rules use, in words. */
function resultLine(r: ReviewTableRow): string {
  const facts = [
    ...(r.detail ? [r.detail] : []),
    ...(r.changes ?? []).map((c) => `${c.severity === 'regression' ? 'REGRESSION' : 'cosmetic change'}: ${c.summary}`),
    ...(r.notCovered?.length ? [`not covered (its burn-in could not verify): ${r.notCovered.join('; ')}`] : []),
    ...(r.visualChanges ?? []).map(
      (v) => `VISUAL CHANGE at step ${v.stepIndex + 1} (${v.target}): ${percent(v.ratio)} of the pixels differ`,
    ),
  ];
  return `- ${r.name} (${r.origin}${r.quarantined ? ', quarantined: does not count' : ''}): ${r.result}${facts.length ? ` — ${facts.join('; ')}` : ''}`;
}

const llmOf = (llm: Llm | undefined): Llm => {
  if (!llm) throw new LlmNotConfiguredError();
  return llm;
};

export function createChangeReviewActivities(deps: ActivityDeps) {
  const { db } = deps;
  const appUrl = deps.appUrl;
  const requireReview = async (id: string): Promise<ChangeReviewRecord> => {
    const review = await findChangeReview(db, id);
    if (!review) throw new NotFoundError('Change review', id);
    return review;
  };

  /** The review, the change it reviews, and the model with its calls counted to the review. */
  const reviewWithModel = async (id: string) => {
    const review = await requireReview(id);
    const llm = llmFor(deps, llmOf(deps.llm), {
      projectId: review.projectId,
      purpose: 'review',
      changeReviewId: review.id,
    });
    return { review, llm, change: await storedChange(review) };
  };

  /** The pull/merge request as the provider has it now, through the project's integration. */
  async function fetchPullRequest(review: ChangeReviewRecord): Promise<StoredChange> {
    if (!review.provider || !review.prUrl) throw new InvalidError('the review names no pull/merge request');
    const ref = parseMergeRequestUrl(review.provider, review.prUrl);
    const client = await gitClientFor(deps, review.projectId, ref);
    const mr = await client.fetchMergeRequest(ref);
    return {
      title: mr.title,
      description: mr.description,
      url: mr.url,
      headSha: mr.headSha,
      sourceBranch: mr.sourceBranch,
      targetBranch: mr.targetBranch,
      files: mr.files,
    };
  }

  async function storedChange(review: ChangeReviewRecord): Promise<StoredChange> {
    if (review.change) return review.change;
    const change: StoredChange =
      review.mode === 'pr'
        ? await fetchPullRequest(review)
        : {
            title: titleFrom(review.changeDescription ?? 'Change'),
            description: review.changeDescription ?? '',
            files: parseUnifiedDiff(review.diff ?? ''),
          };
    // The first fetch wins: a retry after a crash reviews the change it began with, not a newer push.
    return saveChange(db, review.id, change);
  }

  return {
    /** Reads (PR mode: fetches once, then keeps) the change; the workflow classifies its paths. */
    async loadReviewChange(input: { changeReviewId: string }): Promise<{
      title: string;
      paths: string[];
      headSha?: string;
      appUrl: string;
      chatUrl: string;
      source: ChangeReviewRecord['source'];
    }> {
      const review = await requireReview(input.changeReviewId);
      const change = await storedChange(review);
      const chatShortId = await chatShortIdById(db, review.chatId);
      await setTitleIfMissing(db, review.chatId, titleFrom(`Review: ${change.title}`));
      return {
        title: change.title,
        paths: change.files.map((f) => f.path),
        headSha: change.headSha,
        appUrl,
        chatUrl: `${appUrl}/chats/${chatShortId}`,
        source: review.source,
      };
    },

    /** Progress on the assistant message (PARTIAL, streaming) and the review's phase; false when the reply already ended. */
    async reviewProgress(input: {
      changeReviewId: string;
      assistantMessageId: string;
      phase: ChangeReviewPhase;
      text: string;
    }): Promise<boolean> {
      await setReviewPhase(db, input.changeReviewId, input.phase);
      return writePartialReply(db, input.assistantMessageId, input.text);
    },

    /**
     * One model call: affected enabled tests (ids checked against the catalogue, unknown ones dropped) and goals for
     * new tests where coverage is missing (deduplicated, against each other and the catalogue; at most five).
     */
    async selectReviewTests(input: { changeReviewId: string }): Promise<ReviewSelection> {
      const { review, llm, change } = await reviewWithModel(input.changeReviewId);
      return selectReviewTests(deps, {
        review,
        change,
        choose: (request) => withHeartbeats(() => selectTests(llm, request)),
      });
    },

    /**
     * Writes a new test (disabled, labelled change-review) under its stable id; an existing row is the same test.
     * Returns where to burn it in: the review's preview of its application (a new feature exists only there).
     */
    async createReviewTestCase(input: {
      changeReviewId: string;
      projectId: string;
      test: ReviewNewTest;
    }): Promise<{ id: string; name: string; environmentUrl?: string }> {
      const { test } = input;
      const review = await requireReview(input.changeReviewId);
      const environmentUrl = await previewUrl(
        review.projectId,
        review.applicationOverrides.find((o) => o.applicationShortId === test.applicationShortId),
      );
      const earlier = await getTestCaseRecord(db, input.projectId, test.id);
      if (earlier) return { id: test.id, name: test.name, environmentUrl };
      const created = await writeTestCase(
        deps,
        {
          projectId: input.projectId,
          applicationShortId: test.applicationShortId,
          name: test.name,
          goal: test.goal,
          expectedResult: test.expectedResult ?? null,
          labels: [changeReviewLabel],
          resumeFromDependencyProjectTestCaseId: test.resumeFromTestCaseId ?? null,
        },
        { id: test.id },
      );
      return { ...created, environmentUrl };
    },

    /** The review's one run (keyed by the review: a retry finds it), on the review's overrides, linked to its conversation. */
    async createReviewRun(input: {
      changeReviewId: string;
      testCaseIds: string[];
    }): Promise<{ runId: string; runShortId: string; concurrency: number }> {
      const review = await requireReview(input.changeReviewId);
      const meta = review.metadata;
      const chatShortId = await chatShortIdById(db, review.chatId);
      const run = await createTestCasesRun(deps, {
        projectId: review.projectId,
        testCaseIds: input.testCaseIds,
        applications: review.applicationOverrides,
        dropUnrelatedOverrides: true,
        meta: {
          trigger: 'CHANGE_REVIEW',
          actor: meta.actor ?? `change review ${chatShortId}`,
          branch: meta.branch ?? review.change?.sourceBranch,
          commitHash: meta.commitHash ?? review.change?.headSha,
          commitMessage: meta.commitMessage,
          repository: meta.repository,
        },
        idempotencyKey: `change-review:${review.id}`,
      });
      await linkRun(db, review.chatId, run.id);
      await setReviewRun(db, review.id, run.id);
      return { runId: run.id, runShortId: run.shortId, concurrency: chatRunConcurrency };
    },

    /** The model words the verdict from the results; undefined when it gave none (the workflow then decides by the results). */
    async writeReviewVerdict(input: {
      changeReviewId: string;
      reasoning: string;
      rows: ReviewTableRow[];
    }): Promise<VerdictDraft | undefined> {
      const { review, llm, change } = await reviewWithModel(input.changeReviewId);
      const results = input.rows.map(resultLine).join('\n') || '(no tests ran)';
      return withHeartbeats(() =>
        writeVerdict(llm, {
          change: {
            title: change.title,
            description: change.description,
            context: review.context,
            fileCount: change.files.length,
          },
          selectionReasoning: input.reasoning,
          results,
        }),
      );
    },

    /** Stores the verdict and ends the reply COMPLETED with the full body, in that order (a poller that sees COMPLETED finds the data). */
    async finishChangeReview(input: {
      changeReviewId: string;
      assistantMessageId: string;
      verdict: ChangeReviewRecord['verdict'] & string;
      summary: string;
      tests: ChangeReviewTestResult[];
      body: string;
    }): Promise<void> {
      await completeReview(db, input.changeReviewId, {
        verdict: input.verdict,
        summary: input.summary,
        tests: input.tests,
      });
      await finishReply(db, input.assistantMessageId, { status: 'COMPLETED', text: input.body, toolsUsed: [] });
    },

    /** Ends a review that could not finish (FAILED with the reason as the reply's text) or was cancelled. */
    async endChangeReview(input: {
      changeReviewId: string;
      assistantMessageId: string;
      state: 'FAILED' | 'CANCELLED';
      reason?: string;
    }): Promise<void> {
      await endReview(db, input.changeReviewId, input.state, input.reason ?? null);
      await finishReply(db, input.assistantMessageId, {
        status: input.state,
        text: input.reason && `The review could not finish: ${input.reason}`,
        toolsUsed: [],
      });
    },
  };

  /** The URL an override points the application at (by URL or by environment); none for a build or no override. */
  async function previewUrl(projectId: string, override: ApplicationOverride | undefined): Promise<string | undefined> {
    const env = override?.environment;
    if (!env) return undefined;
    return (await findOverrideTarget(deps, projectId, env))?.url ?? undefined;
  }
}
