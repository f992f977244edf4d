import {
  ActivityFailure,
  type ActivityOptions,
  CancellationScope,
  ParentClosePolicy,
  ChildWorkflowCancellationType,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { browserActivity, chatLlmActivity, dbActivity } from './activity-options.js';
import { burnIn } from './burnIn.js';
import { innermostMessage } from './errors.js';
import { childAttributes } from './search-attributes.js';
import { planRun } from './planRun.js';
import { chatTurnWorkflowId, type ChatTurnInput, type ChatTurnResult } from './chat-contract.js';
import { workflowIds } from './shared.js';
import type { ChatToolCall, ChatToolExchange, ChatToolRuns } from '../src/domain/chat.js';

const db = proxyActivities<Activities>(dbActivity);
// The turn's own bookkeeping (is the reply still wanted, title, final status) is short idempotent writes: as
// local activities they run inside the workflow task, saving a task-queue round trip before the model is asked
// and between the end of its stream and COMPLETED (bench/chat.ts).
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: dbActivity.startToCloseTimeout,
  retry: dbActivity.retry,
});
const llm = proxyActivities<Activities>(chatLlmActivity);

/** Model calls per turn at most: each answers with text or asks for tools; a model that never stops is cut off. */
const maxRounds = 12;

/**
 * One turn of a conversation: stream the model's reply into the assistant message, run the tools it asks
 * for (each an activity or a child workflow calling the same code as the API), feed back compact results,
 * until it answers with text only. Ends the message COMPLETED, FAILED (reason as text) or CANCELLED.
 */
export async function chatTurn(input: ChatTurnInput): Promise<ChatTurnResult> {
  const toolsUsed: string[] = [];
  const finish = (status: ChatTurnResult['status'], text?: string) =>
    bookkeeping
      .finishChatReply({ assistantMessageId: input.assistantMessageId, status, text, toolsUsed })
      .then(() => ({ status, toolsUsed }));

  if (!(await bookkeeping.beginChatTurn({ assistantMessageId: input.assistantMessageId })))
    return { status: 'CANCELLED', toolsUsed };
  const exchanges: ChatToolExchange[] = [];
  let text = '';
  try {
    for (let round = 0; round < maxRounds; round++) {
      const reply = await llm.streamChatReply({
        chatId: input.chatId,
        projectId: input.projectId,
        turn: input.turn,
        assistantMessageId: input.assistantMessageId,
        prefix: text,
        exchanges,
      });
      text = reply.text;
      if (reply.toolCalls.length === 0) {
        // Titled before the reply completes: a client that stops polling at COMPLETED sees the title.
        if (input.turn === 1) await bookkeeping.titleChat({ chatId: input.chatId });
        return await finish('COMPLETED', text);
      }
      const results: ChatToolExchange['results'] = [];
      for (const call of reply.toolCalls) {
        toolsUsed.push(call.name);
        setCurrentDetails(`Turn ${input.turn}. Tools used: ${toolsUsed.join(', ')}`);
        results.push({ id: call.id, content: await runTool(input, call) });
      }
      exchanges.push({ text: reply.roundText, toolCalls: reply.toolCalls, results });
    }
    return await finish(
      'COMPLETED',
      `${text}\n\n(Stopped after ${maxRounds} tool rounds without a final answer.)`.trim(),
    );
  } catch (err) {
    if (isCancellation(err)) return CancellationScope.nonCancellable(() => finish('CANCELLED'));
    return finish('FAILED', `The assistant could not answer: ${reasonOf(err)}`);
  }
}

/** The activity's own message ("the LLM endpoint failed after retries: 500 …"), not the wrapper's nor only the HTTP cause. */
function reasonOf(err: unknown): string {
  return err instanceof ActivityFailure && err.cause ? err.cause.message : innermostMessage(err);
}

// Tool calls recorded before the tool registry said how each runs: the three that were not plain activities then.
const runsBeforeRegistry: Readonly<Record<string, ChatToolRuns>> = {
  create_test_case: 'burnIn',
  run_tests: 'planRun',
  explore_page: 'browser',
};
// Turns that started before it ran browser tools through runChatTool and read a run's results with chatRunResults.
const toolRegistryPatch = 'chat-tool-registry';

/**
 * Runs one tool the way the registry says (`call.runs`); what goes back to the model is a short text, never
 * secrets (the activities redact).
 */
async function runTool(input: ChatTurnInput, call: ChatToolCall): Promise<string> {
  const ctx = { chatId: input.chatId, projectId: input.projectId };
  const summary = `chat ${input.chatShortId} turn ${input.turn}: ${call.name}`;
  // The key makes a retried activity find what it already wrote (a test case, a run) instead of writing a second one.
  const key = `${chatTurnWorkflowId(input.chatShortId, input.turn)}:${call.id}`;
  const tool = { ...ctx, name: call.name, args: call.args };
  switch (call.runs ?? runsBeforeRegistry[call.name] ?? 'activity') {
    case 'burnIn': {
      const created = await db.createChatTestCase.executeWithOptions({ ...dbActivity, summary }, [{ ...tool, key }]);
      if (!created.ok) return created.message;
      // The burn-in outlives a cancelled reply: the test case exists and should finish generating.
      const burned = await executeChild(burnIn, {
        workflowId: workflowIds.burnIn(created.testCaseId),
        staticSummary: `Burn-in: ${created.name}`,
        ...childAttributes({ testCase: created.testCaseId, trigger: 'CHAT' }),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        args: [{ projectId: input.projectId, testCaseId: created.testCaseId }],
      });
      return burned.status === 'COMPLETED'
        ? `Created test case "${created.name}" (id ${created.testCaseId}); burn-in COMPLETED with ${burned.stepCount} recorded steps.${burned.notCovered?.length ? ` Not covered (the agent could not verify, so a pass does not prove it): ${burned.notCovered.join('; ')}.` : ''} It is disabled until enabled for test plans, but can be run by id now.`
        : `Created test case "${created.name}" (id ${created.testCaseId}), but its burn-in FAILED: ${burned.failureReason ?? 'unknown reason'}.`;
    }
    case 'planRun': {
      const run = await db.createChatRun.executeWithOptions({ ...dbActivity, summary }, [{ ...tool, key }]);
      if (!run.ok) return run.message;
      await executeChild(planRun, {
        workflowId: workflowIds.planRun(run.runShortId),
        staticSummary: `Run ${run.runShortId} (chat ${input.chatShortId}): ${run.testCount} test(s)`,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        args: [
          {
            runId: run.runId,
            runShortId: run.runShortId,
            projectId: input.projectId,
            concurrency: run.concurrency,
            heal: true,
          },
        ],
      });
      if (!patched(toolRegistryPatch)) {
        return db.runChatTool.executeWithOptions({ ...dbActivity, summary }, [
          { ...ctx, name: 'get_run_results', args: { runShortId: run.runShortId } },
        ]);
      }
      return db.chatRunResults.executeWithOptions({ ...dbActivity, summary }, [{ ...ctx, runShortId: run.runShortId }]);
    }
    case 'browser': {
      const options: ActivityOptions = { ...browserActivity, startToCloseTimeout: '5 minutes', summary };
      if (!patched(toolRegistryPatch)) return db.exploreChatPage.executeWithOptions(options, [tool]);
      return db.runChatTool.executeWithOptions(options, [tool]);
    }
    case 'activity':
      return db.runChatTool.executeWithOptions({ ...dbActivity, summary }, [tool]);
  }
}
