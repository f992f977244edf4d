import type { AgentMove } from './agent-script.js';
import type { ChatRequest, ScriptedReply, ScriptedStep } from './scripted-llm.js';
import type { Stack } from './worker-context.js';

// The scripted model's side of a change review, and QA.tech's change-review action as a client.

const asksFor = (req: ChatRequest, tool: string) =>
  req.tools?.some((t) => t.type === 'function' && t.function.name === tool) ?? false;
const promptOf = (req: ChatRequest) =>
  req.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');

export interface ReviewScript {
  /** The arguments of `select_tests`, given the selection prompt (the change and the catalogue). */
  select: (prompt: string) => Record<string, unknown>;
  /** The arguments of `write_verdict`, given the verdict prompt (the results). */
  verdict: (prompt: string) => Record<string, unknown>;
  /** Burn-in moves for new tests; each move is picked by how many steps the agent has recorded so far. */
  moves?: AgentMove[];
}

/**
 * One reply for any request of a review: selection, verdict or a burn-in move. Stateless (a burn-in move is chosen
 * by the steps already in the prompt), so a step retried after a crash gets the same answer; enqueue it many times.
 */
export function reviewResponder(script: ReviewScript): ScriptedStep {
  return (req): ScriptedReply => {
    if (asksFor(req, 'select_tests'))
      return { toolCalls: [{ name: 'select_tests', arguments: script.select(promptOf(req)) }] };
    if (asksFor(req, 'write_verdict'))
      return { toolCalls: [{ name: 'write_verdict', arguments: script.verdict(promptOf(req)) }] };
    const last = req.messages.at(-1);
    const prompt = typeof last?.content === 'string' ? last.content : '';
    const done = prompt.split('\n').filter((l) => /^\d+\. .* ✓$/.test(l)).length;
    const move = script.moves?.[done];
    if (!move) throw new Error(`review script: no move ${done} for:\n${prompt.slice(0, 500)}`);
    return move(req);
  };
}

/**
 * The model of a review that selects the existing test `testCaseId` and proposes Approved whatever happened, so the
 * code decides what the results allow. `subject` is what the change touches ("the invoice list"), for its texts.
 */
export const approvingReview = (testCaseId: string, subject: string): ScriptedStep =>
  reviewResponder({
    select: () => ({ existingTestCaseIds: [testCaseId], newTests: [], reasoning: `The change touches ${subject}.` }),
    verdict: () => ({
      verdict: 'Approved',
      summary: `Exercised ${subject} on the preview.`,
      evaluationDetails: `The selected test of ${subject} ran.`,
    }),
  });

/**
 * The model of a review that finds no existing test affected and no new one needed (the review runs nothing and
 * says so), `times` times over: enough for every review a file makes, steps retried after a crash included.
 */
export const nothingToReview = (times: number): ScriptedStep[] =>
  Array.from({ length: times }, () =>
    reviewResponder({
      select: () => ({ existingTestCaseIds: [], newTests: [], reasoning: 'Only an internal refactor.' }),
      verdict: () => ({}),
    }),
  );

export interface ActionOutcome {
  shortId: string;
  verdict: string | undefined;
  text: string;
  /** Status and text of the newest message at each poll. */
  seen: { status: string; isStreaming: boolean; text: string }[];
}

/**
 * What QA.tech's change-review action does: POST the review, poll `GET /v1/chat/{id}?limit=5` until the newest
 * message is an assistant message that is COMPLETED (FAILED or CANCELLED fail the action), read the verdict from its text.
 */
export async function changeReviewAction(
  stack: Pick<Stack, 'call'>,
  body: unknown,
  opts: { intervalMs?: number; timeoutMs?: number } = {},
): Promise<ActionOutcome> {
  const created = await stack.call('POST', '/v1/chat/change-review', body);
  if (created.status !== 202)
    throw new Error(`POST /v1/chat/change-review: ${created.status} ${JSON.stringify(created.body)}`);
  const { shortId } = created.body as { shortId: string };
  const seen: ActionOutcome['seen'] = [];
  const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
  for (;;) {
    const res = await stack.call('GET', `/v1/chat/${shortId}?limit=5`);
    const newest = res.body.messages?.[0];
    if (newest) seen.push({ status: newest.status, isStreaming: newest.isStreaming, text: newest.text });
    if (newest?.role === 'assistant' && ['FAILED', 'CANCELLED'].includes(newest.status))
      throw new Error(`the review ended ${newest.status}: ${newest.text}`);
    if (newest?.role === 'assistant' && newest.status === 'COMPLETED') {
      return {
        shortId,
        verdict: /\*\*Verdict: (Approved|Changes Requested|Comment)\*\*/.exec(newest.text)?.[1],
        text: newest.text,
        seen,
      };
    }
    if (Date.now() > deadline)
      throw new Error(`review ${shortId} did not finish; last answer: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
}
