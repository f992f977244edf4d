// Change reviews as business operations: record a review (its conversation, the user's request as a readable
// message, the assistant placeholder and the change_reviews row, in one transaction), start it, read its verdict.
// `recordChangeReview` starts nothing: a merge-request review records it from an activity and runs `changeReview`
// as its own child; the API route (and MCP) call `createChangeReview`, which also starts the workflow.
import type { z } from '@hono/zod-openapi';
import type { DB } from '../db/database.js';
import {
  findChangeReviewByChat,
  insertChangeReview,
  endReview,
  type ChangeReviewRecord,
} from '../db/queries/change-reviews.js';
import { findGitIntegrationByProvider } from '../db/queries/git-integrations.js';
import {
  findChat,
  findChatByIdempotencyKey,
  insertChat,
  toChatView,
  type ChatRecord,
  type ChatView,
} from '../db/queries/chats.js';
import { finishReply, insertTurn } from '../db/queries/chat-turns.js';
import { parseUnifiedDiff } from '../domain/diff.js';
import type { ApplicationOverride } from '../domain/precedence.js';
import { actionFieldNames, type ChangeReviewRequest as ChangeReviewBody } from '../schemas/change-review.js';
import type { GitProviderId } from '../domain/git.js';
import { parseMergeRequestUrl } from '../git/urls.js';
import { newId, newShortId } from '../ids.js';
import { startChangeReview } from '../temporal/chat-lifecycle.js';
import type { ChangeReviewInput } from '../../workflows/change-review-contract.js';
import { checkOverrides, isUniqueViolation } from './chat.js';
import { InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import { assertLlmBudget, usageTotals } from './llm-usage.js';
import type { UsageTotals } from '../domain/llm-usage.js';
import type { ServiceContext } from './context.js';
import { reviewTestsView, type ReviewTestView, type VisualChangeView } from './review-visual-links.js';

/** What the caller asked for (`POST /v1/chat/change-review`), plus what QA.tech's action sends along. */
export type ChangeReviewRequest = (
  | { mode: 'pr'; prUrl: string; vcsProviderId: GitProviderId }
  | { mode: 'rawChanges'; changes: { changeDescription: string; diff: string } }
) & {
  applicationOverrides: ApplicationOverride[];
  context?: string;
  /** The action's extra fields (projectShortId, actor, branch, commitHash, commitMessage, repository): stored, shown. */
  metadata?: Record<string, string>;
};

/** The request from a validated `POST /v1/chat/change-review` body (the MCP tool `start_change_review` takes the same). */
export function changeReviewRequestOf(body: z.infer<typeof ChangeReviewBody>): ChangeReviewRequest {
  const metadata = Object.fromEntries(actionFieldNames.flatMap((k) => (body[k] ? [[k, body[k]]] : [])));
  const common = {
    applicationOverrides: body.applicationOverrides as ApplicationOverride[],
    context: body.context,
    metadata,
  };
  return body.mode === 'pr'
    ? { mode: 'pr', prUrl: body.prUrl, vcsProviderId: body.vcsProviderId, ...common }
    : { mode: 'rawChanges', changes: body.changes, ...common };
}

export interface RecordOptions {
  source: 'api' | GitProviderId;
  idempotencyKey?: string;
  /** The dashboard's address, for the conversation's URL. */
  appUrl: string;
}

export interface RecordedChangeReview {
  view: ChatView;
  input: ChangeReviewInput;
  /** false: the idempotency key named a review recorded earlier, returned as it is. */
  created: boolean;
  state: ChangeReviewRecord['state'];
}

const inputOf = (chat: ChatRecord, review: ChangeReviewRecord): ChangeReviewInput => ({
  chatId: chat.id,
  chatShortId: chat.shortId,
  projectId: chat.projectId,
  changeReviewId: review.id,
  assistantMessageId: review.assistantMessageId,
});

/** The user's message of the conversation: the request in words (a diff may be megabytes: its files are listed). */
export function describeRequest(request: ChangeReviewRequest): string {
  const lines: string[] = [];
  if (request.mode === 'pr') {
    lines.push(`Review the ${request.vcsProviderId === 'github' ? 'pull' : 'merge'} request ${request.prUrl}`);
  } else {
    const files = parseUnifiedDiff(request.changes.diff);
    const added = files.reduce((n, f) => n + f.additions, 0);
    const removed = files.reduce((n, f) => n + f.deletions, 0);
    lines.push(`Review these changes: ${request.changes.changeDescription.trim()}`);
    const shown = files
      .slice(0, 20)
      .map((f) => `- ${f.path} (${f.status}${f.binary ? ', binary' : `, +${f.additions} -${f.deletions}`})`);
    lines.push(
      `Diff: ${files.length} file(s), +${added} -${removed}${shown.length ? `\n${shown.join('\n')}` : ''}${files.length > 20 ? `\n- … and ${files.length - 20} more` : ''}`,
    );
  }
  const meta = Object.entries(request.metadata ?? {}).filter(([, v]) => v);
  if (meta.length) lines.push(meta.map(([k, v]) => `${k}: ${v}`).join('\n'));
  if (request.context?.trim()) lines.push(`Context: ${request.context.trim()}`);
  lines.push(
    `Environments: ${request.applicationOverrides.map((o) => `${o.applicationShortId} → ${describeEnvironment(o.environment)}`).join(', ') || 'the project defaults'}`,
  );
  return lines.join('\n\n');
}

const describeEnvironment = (env: ApplicationOverride['environment']): string =>
  !env ? 'default' : 'url' in env ? env.url : 'shortId' in env ? env.shortId : env.applicationBuildShortId;

async function existingReview(
  db: DB,
  projectId: string,
  key: string,
  appUrl: string,
): Promise<RecordedChangeReview | undefined> {
  const chat = await findChatByIdempotencyKey(db, projectId, key);
  if (!chat) return undefined;
  const review = await findChangeReviewByChat(db, chat.id);
  if (!review) throw new InvalidError(`Idempotency-Key ${key} was used for a conversation that is not a change review`);
  return { view: toChatView(chat, appUrl, []), input: inputOf(chat, review), created: false, state: review.state };
}

/**
 * Writes the review's conversation (source `api`, `github` or `gitlab`), its first user message, the assistant
 * placeholder that will show progress and the verdict, and the change_reviews row, all or nothing. Starts nothing.
 * With an idempotency key that was used before, returns that review (`created: false`).
 */
export async function recordChangeReview(
  { db }: ServiceContext,
  projectId: string,
  request: ChangeReviewRequest,
  opts: RecordOptions,
): Promise<RecordedChangeReview> {
  if (opts.idempotencyKey) {
    const earlier = await existingReview(db, projectId, opts.idempotencyKey, opts.appUrl);
    if (earlier) return earlier;
  }
  // Refused here (400, 404), not when the workflow fetches it: a bad address or a missing integration never
  // becomes a FAILED review. (One removed while the review runs still fails it, saying so.)
  if (request.mode === 'pr') {
    parseMergeRequestUrl(request.vcsProviderId, request.prUrl);
    if (!(await findGitIntegrationByProvider(db, projectId, request.vcsProviderId))) {
      throw new NotFoundError(
        `${request.vcsProviderId === 'github' ? 'GitHub' : 'GitLab'} integration`,
        'connect one with POST /v1/git-integrations first',
      );
    }
  }
  await checkOverrides({ db }, projectId, request.applicationOverrides);
  const chatId = newId();
  const shortId = newShortId('chat');
  const reviewId = newId();
  const assistantMessageId = newId();
  try {
    await db.transaction().execute(async (trx) => {
      await insertChat(trx, {
        id: chatId,
        shortId,
        projectId,
        source: opts.source,
        applicationOverrides: request.applicationOverrides,
        idempotencyKey: opts.idempotencyKey,
      });
      await insertTurn(trx, {
        chatId,
        turn: 1,
        text: describeRequest(request),
        userMessageId: newId(),
        assistantMessageId,
      });
      await insertChangeReview(trx, {
        id: reviewId,
        chatId,
        projectId,
        assistantMessageId,
        mode: request.mode,
        source: opts.source,
        provider: request.mode === 'pr' ? request.vcsProviderId : null,
        prUrl: request.mode === 'pr' ? request.prUrl : null,
        changeDescription: request.mode === 'rawChanges' ? request.changes.changeDescription : null,
        diff: request.mode === 'rawChanges' ? request.changes.diff : null,
        context: request.context?.trim() || null,
        applicationOverrides: request.applicationOverrides,
        metadata: request.metadata ?? {},
      });
    });
  } catch (err) {
    // The same key sent twice at once: the loser answers with the winner's review.
    if (opts.idempotencyKey && isUniqueViolation(err)) {
      const earlier = await existingReview(db, projectId, opts.idempotencyKey, opts.appUrl);
      if (earlier) return earlier;
    }
    throw err;
  }
  const chat = (await findChat(db, projectId, shortId))!;
  return {
    view: toChatView(chat, opts.appUrl, []),
    input: { chatId, chatShortId: shortId, projectId, changeReviewId: reviewId, assistantMessageId },
    created: true,
    state: 'QUEUED',
  };
}

/**
 * POST /v1/chat/change-review: records the review and starts its workflow. A review not yet picked up is started
 * again on a repeated request (the first start may have failed); one that began is never started twice. When
 * Temporal does not take the start, the review and its reply end FAILED with the reason and the caller gets a 503.
 */
export async function createChangeReview(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  projectId: string,
  request: ChangeReviewRequest,
  opts: { idempotencyKey?: string },
): Promise<ChatView> {
  // A review is LLM work: refused (429) once the project's daily budget is spent, before anything is written.
  await assertLlmBudget(deps, projectId);
  const recorded = await recordChangeReview(deps, projectId, request, {
    source: 'api',
    idempotencyKey: opts.idempotencyKey,
    appUrl: deps.appUrl,
  });
  if (recorded.state !== 'QUEUED') return recorded.view;
  try {
    await startChangeReview(deps.temporal, recorded.input);
  } catch (err) {
    const reason = `could not start the review: ${err instanceof Error ? err.message : String(err)}`;
    await finishReply(deps.db, recorded.input.assistantMessageId, { status: 'FAILED', text: reason, toolsUsed: [] });
    await endReview(deps.db, recorded.input.changeReviewId, 'FAILED', reason);
    throw new UnavailableError(`${reason}; send it again with a new Idempotency-Key`);
  }
  return recorded.view;
}

export interface ChangeReviewView {
  chatShortId: string;
  url: string;
  mode: ChangeReviewRecord['mode'];
  source: ChangeReviewRecord['source'];
  state: ChangeReviewRecord['state'];
  phase: string | null;
  verdict: ChangeReviewRecord['verdict'];
  summary: string | null;
  tests: ReviewTestView[];
  /** Extension: every counted visual change, apart from the tests (a kind of finding of its own). */
  visualChanges: (VisualChangeView & { testCaseId: string; testName: string })[];
  runShortId: string | null;
  runUrl: string | null;
  change: { title: string; url: string | null; headSha: string | null; fileCount: number } | null;
  prUrl: string | null;
  metadata: Record<string, string>;
  failureReason: string | null;
  createdAt: string;
  completedAt: string | null;
  /** What the review's own LLM calls (choosing tests, wording the verdict) came to: an extension to the spec. */
  usage: UsageTotals;
}

/** GET /v1/chat/{shortId}/review: the verdict as data (or where the review is while it runs). */
export async function getChangeReview(
  deps: ServiceContext<'appUrl' | 'blobs' | 'urlTtlSeconds'>,
  input: { projectId: string; chatShortId: string },
): Promise<ChangeReviewView> {
  const chat = await findChat(deps.db, input.projectId, input.chatShortId);
  if (!chat) throw new NotFoundError('Conversation');
  const review = await findChangeReviewByChat(deps.db, chat.id);
  if (!review) throw new NotFoundError('Change review', `conversation ${chat.shortId} is not a change review`);
  return {
    chatShortId: chat.shortId,
    url: `${deps.appUrl}/chats/${chat.shortId}`,
    mode: review.mode,
    source: review.source,
    state: review.state,
    phase: review.phase,
    verdict: review.verdict,
    summary: review.summary,
    ...(await reviewTestsView(deps, review.tests)),
    runShortId: review.runShortId,
    runUrl: review.runShortId ? `${deps.appUrl}/runs/${review.runShortId}` : null,
    change: review.change && {
      title: review.change.title,
      url: review.change.url ?? null,
      headSha: review.change.headSha ?? null,
      fileCount: review.change.files.length,
    },
    prUrl: review.prUrl,
    metadata: review.metadata,
    failureReason: review.failureReason,
    createdAt: review.createdAt.toISOString(),
    completedAt: review.completedAt?.toISOString() ?? null,
    usage: await usageTotals(deps, input.projectId, { changeReviewId: review.id }),
  };
}
