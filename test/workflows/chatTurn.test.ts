import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StreamChatReplyInput, StreamChatReplyResult } from '../../activities/chat.js';
import type { ChatToolCall } from '../../src/domain/chat.js';
import { chatTurnWorkflowId, type ChatTurnInput } from '../../workflows/chat-contract.js';
import { failureTypes } from '../../workflows/shared.js';
import { useWorkflowHarness, recorder, type MockActivities } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// chatTurn on the time-skipping server with typed mocks of its activities and stand-in children
// (test/workflows/stubs/chat.ts): each way a tool runs (activity, browser, burn-in child, plan-run child), refusals,
// the round limit, a reply cancelled before it began, and a model that fails for good.

const h = useWorkflowHarness({ workflowsPath: fileURLToPath(new URL('./stubs/chat.ts', import.meta.url)) });

type Reply = { text?: string; toolCalls?: ChatToolCall[] };
type Finish = Parameters<NonNullable<MockActivities['finishChatReply']>>[0];
type ToolInput = Parameters<NonNullable<MockActivities['runChatTool']>>[0];

/** The turn's activities: the model answers `replies` in order (then plain text); tools answer their name. */
function activities(
  replies: Reply[],
  opts: { begin?: boolean; created?: Awaited<ReturnType<NonNullable<MockActivities['createChatTestCase']>>> } = {},
) {
  const script = [...replies];
  const mocks = {
    beginChatTurn: recorder(async (_input: { assistantMessageId: string }) => opts.begin ?? true),
    streamChatReply: recorder(async (input: StreamChatReplyInput): Promise<StreamChatReplyResult> => {
      const reply = script.shift() ?? { text: 'Done.' };
      const roundText = reply.text ?? '';
      return {
        text: [input.prefix, roundText].filter(Boolean).join('\n\n'),
        roundText,
        toolCalls: reply.toolCalls ?? [],
      };
    }),
    titleChat: recorder(async (_input: { chatId: string }) => {}),
    finishChatReply: recorder(async (_input: Finish) => {}),
    runChatTool: recorder(async (input: ToolInput) => `${input.name} answered`),
    exploreChatPage: recorder(async (_input: Omit<ToolInput, 'name'>) => 'explored the old way'),
    createChatTestCase: recorder(
      async (input: Parameters<NonNullable<MockActivities['createChatTestCase']>>[0]) =>
        opts.created ?? {
          ok: true as const,
          testCaseId: `tc-${String(input.args.name)}`,
          name: String(input.args.name),
        },
    ),
    createChatRun: recorder(async (_input: Parameters<NonNullable<MockActivities['createChatRun']>>[0]) => ({
      ok: true as const,
      runId: 'run-id-1',
      runShortId: 'run_abc123',
      testCount: 1,
      concurrency: 100,
    })),
    chatRunResults: recorder(
      async (input: { runShortId: string }) => `Run ${input.runShortId}: status COMPLETED, result PASSED`,
    ),
  };
  return mocks satisfies MockActivities;
}

const input = (chatShortId: string, turn = 1): ChatTurnInput => ({
  chatId: 'chat-id-1',
  chatShortId,
  projectId: 'project-1',
  turn,
  userMessageId: `user-${turn}`,
  assistantMessageId: `assistant-${turn}`,
});
const call = (id: string, name: string, args: Record<string, unknown>, runs?: ChatToolCall['runs']): ChatToolCall => ({
  id,
  name,
  args,
  ...(runs && { runs }),
});

async function runTurn(mocks: ReturnType<typeof activities>, turn = input(h.uniqueId('chat'))) {
  const result = await h.withWorker(mocks, async (q) =>
    (await q.start('chatTurn', [turn], chatTurnWorkflowId(turn.chatShortId, turn.turn))).result(),
  );
  return { result, turn };
}

describe('chatTurn', () => {
  it('a text answer: streamed, the chat titled on its first turn, the reply COMPLETED with the text', async () => {
    const mocks = activities([{ text: 'Hello, I am Proctor.' }]);
    const { result, turn } = await runTurn(mocks);

    expect(result).toEqual({ status: 'COMPLETED', toolsUsed: [] });
    expect(mocks.streamChatReply.calls).toEqual([
      [
        {
          chatId: 'chat-id-1',
          projectId: 'project-1',
          turn: 1,
          assistantMessageId: 'assistant-1',
          prefix: '',
          exchanges: [],
        },
      ],
    ]);
    expect(mocks.titleChat.calls).toEqual([[{ chatId: turn.chatId }]]);
    expect(mocks.finishChatReply.calls).toEqual([
      [{ assistantMessageId: 'assistant-1', status: 'COMPLETED', text: 'Hello, I am Proctor.', toolsUsed: [] }],
    ]);
  });

  it('a later turn is not titled again', async () => {
    const mocks = activities([{ text: 'Again.' }]);
    await runTurn(mocks, input(h.uniqueId('chat'), 2));
    expect(mocks.titleChat.calls).toEqual([]);
  });

  it('runs each tool the way the registry says, feeds the answers back in call order, then completes', async () => {
    const mocks = activities([
      {
        text: 'Let me look.',
        toolCalls: [
          call('c1', 'list_applications', {}, 'activity'),
          call('c2', 'explore_page', { url: 'https://shop.test/' }, 'browser'),
          call(
            'c3',
            'create_test_case',
            { applicationShortId: 'app_x', name: 'Checkout', goal: 'Buy a mug' },
            'burnIn',
          ),
          call('c4', 'run_tests', { testCaseIds: ['tc-Checkout'] }, 'planRun'),
        ],
      },
      { text: 'Run run_abc123 passed.' },
    ]);
    const { result, turn } = await runTurn(mocks);
    const key = (id: string) => `${chatTurnWorkflowId(turn.chatShortId, 1)}:${id}`;
    const ctx = { chatId: 'chat-id-1', projectId: 'project-1' };

    expect(result).toEqual({
      status: 'COMPLETED',
      toolsUsed: ['list_applications', 'explore_page', 'create_test_case', 'run_tests'],
    });
    expect(mocks.runChatTool.calls).toEqual([
      [{ ...ctx, name: 'list_applications', args: {} }],
      [{ ...ctx, name: 'explore_page', args: { url: 'https://shop.test/' } }],
    ]);
    expect(mocks.exploreChatPage.calls).toEqual([]);
    expect(mocks.createChatTestCase.calls).toEqual([
      [
        {
          ...ctx,
          name: 'create_test_case',
          args: { applicationShortId: 'app_x', name: 'Checkout', goal: 'Buy a mug' },
          key: key('c3'),
        },
      ],
    ]);
    expect(mocks.createChatRun.calls).toEqual([
      [{ ...ctx, name: 'run_tests', args: { testCaseIds: ['tc-Checkout'] }, key: key('c4') }],
    ]);
    // The run's results come from their own activity, not from a made-up get_run_results call.
    expect(mocks.chatRunResults.calls).toEqual([[{ ...ctx, runShortId: 'run_abc123' }]]);

    const second = mocks.streamChatReply.calls[1]![0];
    expect(second.prefix).toBe('Let me look.');
    expect(second.exchanges).toHaveLength(1);
    expect(second.exchanges[0]!.results).toEqual([
      { id: 'c1', content: 'list_applications answered' },
      { id: 'c2', content: 'explore_page answered' },
      {
        id: 'c3',
        content: expect.stringMatching(
          /^Created test case "Checkout" \(id tc-Checkout\); burn-in COMPLETED with 4 recorded steps\./,
        ),
      },
      { id: 'c4', content: 'Run run_abc123: status COMPLETED, result PASSED' },
    ]);
    expect(mocks.finishChatReply.calls).toEqual([
      [expect.objectContaining({ status: 'COMPLETED', text: 'Let me look.\n\nRun run_abc123 passed.' })],
    ]);
  });

  it('a call without `runs` (recorded before the registry) is routed by its name, as it was then', async () => {
    const mocks = activities([
      {
        toolCalls: [
          call('c1', 'create_test_case', { name: 'Legacy', goal: 'g', applicationShortId: 'app_x' }),
          call('c2', 'list_test_plans', {}),
        ],
      },
    ]);
    await runTurn(mocks);
    expect(mocks.createChatTestCase.calls).toHaveLength(1);
    expect(mocks.runChatTool.calls.map(([c]) => c.name)).toEqual(['list_test_plans']);
  });

  it('a refused test case goes back to the model in words and starts no burn-in; a failed burn-in is reported', async () => {
    const refused = activities([{ toolCalls: [call('c1', 'create_test_case', { name: 'x' }, 'burnIn')] }], {
      created: { ok: false, message: 'error: goal: Invalid input' },
    });
    await runTurn(refused);
    expect(refused.streamChatReply.calls[1]![0].exchanges[0]!.results).toEqual([
      { id: 'c1', content: 'error: goal: Invalid input' },
    ]);

    const failed = activities([{ toolCalls: [call('c1', 'create_test_case', { name: 'x' }, 'burnIn')] }], {
      created: { ok: true, testCaseId: 'bad-1', name: 'x' },
    });
    await runTurn(failed);
    expect(failed.streamChatReply.calls[1]![0].exchanges[0]!.results[0]!.content).toBe(
      'Created test case "x" (id bad-1), but its burn-in FAILED: no button named "Checkout".',
    );
  });

  it('a model that never stops asking for tools is cut off after 12 rounds, COMPLETED with a note', async () => {
    const mocks = activities(
      Array.from({ length: 20 }, (_, i) => ({ toolCalls: [call(`c${i}`, 'list_test_plans', {}, 'activity')] })),
    );
    const { result } = await runTurn(mocks);
    expect(result.status).toBe('COMPLETED');
    expect(mocks.streamChatReply.calls).toHaveLength(12);
    expect(mocks.finishChatReply.calls[0]![0]).toMatchObject({
      status: 'COMPLETED',
      text: '(Stopped after 12 tool rounds without a final answer.)',
    });
  });

  it('a reply that ended before its turn began (cancelled while waiting): nothing streamed, CANCELLED', async () => {
    const mocks = activities([{ text: 'never' }], { begin: false });
    const { result } = await runTurn(mocks);
    expect(result).toEqual({ status: 'CANCELLED', toolsUsed: [] });
    expect(mocks.streamChatReply.calls).toEqual([]);
    expect(mocks.finishChatReply.calls).toEqual([]);
  });

  it('a model call that fails for good: the reply is FAILED with the activity’s own message', async () => {
    const mocks = {
      ...activities([]),
      streamChatReply: recorder(async (_input: StreamChatReplyInput): Promise<StreamChatReplyResult> => {
        throw failureForGood('no LLM configured: set OPENAI_API_KEY', failureTypes.llmNotConfigured);
      }),
    };
    const { result } = await runTurn(mocks);
    expect(result.status).toBe('FAILED');
    expect(mocks.streamChatReply.calls).toHaveLength(1);
    expect(mocks.finishChatReply.calls).toEqual([
      [
        {
          assistantMessageId: 'assistant-1',
          status: 'FAILED',
          text: 'The assistant could not answer: no LLM configured: set OPENAI_API_KEY',
          toolsUsed: [],
        },
      ],
    ]);
  });
});
