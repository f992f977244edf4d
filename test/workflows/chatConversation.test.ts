import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { StreamChatReplyInput, StreamChatReplyResult } from '../../activities/chat.js';
import { cancelChatReply, sendChatTurn } from '../../src/temporal/chat-lifecycle.js';
import {
  chatMessageSignal,
  chatStateQuery,
  type ChatConversationInput,
  type ChatTurnRequest,
} from '../../workflows/chat-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import {
  useWorkflowHarness,
  recorder,
  until,
  type MockActivities,
  type WorkerQueue,
} from '../support/workflow-harness.js';

// chatConversation on the time-skipping server, with the real chatTurn children (test/workflows/stubs/chat.ts) over
// mocked activities: turns answered strictly in turn order whatever order their signals arrive in, a repeated
// signal ignored, a waiting reply and the reply being written cancelled, and the idle end. Continue-as-new is
// covered on the real stack (test/e2e/chat-continue-as-new.test.ts).

const h = useWorkflowHarness({ workflowsPath: fileURLToPath(new URL('./stubs/chat.ts', import.meta.url)) });

type Finish = Parameters<NonNullable<MockActivities['finishChatReply']>>[0];

/** The turn's activities; the model's answer to turn N is "answer N", held back while `held` has N. */
function activities() {
  const held = new Set<number>();
  const streaming: number[] = [];
  const mocks = {
    beginChatTurn: recorder(async (_input: { assistantMessageId: string }) => true),
    streamChatReply: recorder(async (input: StreamChatReplyInput): Promise<StreamChatReplyResult> => {
      streaming.push(input.turn);
      const ctx = Context.current();
      // Heartbeats while held, so a cancelled reply's activity hears of it (ctx.sleep throws when cancelled).
      while (held.has(input.turn)) {
        ctx.heartbeat();
        await ctx.sleep(50);
      }
      return { text: `answer ${input.turn}`, roundText: `answer ${input.turn}`, toolCalls: [] };
    }),
    titleChat: recorder(async (_input: { chatId: string }) => {}),
    finishChatReply: recorder(async (_input: Finish) => {}),
  };
  return { mocks: mocks satisfies MockActivities, held, streaming };
}

const turn = (n: number): ChatTurnRequest => ({
  turn: n,
  userMessageId: `user-${n}`,
  assistantMessageId: `assistant-${n}`,
});

/** Runs `body` with a conversation started as the API starts it (signal-with-start of turn 1). */
async function withConversation(
  mocks: MockActivities,
  body: (c: { handle: WorkflowHandle; q: WorkerQueue; conversation: ChatConversationInput }) => Promise<void>,
) {
  const chatShortId = h.uniqueId('chat');
  const conversation: ChatConversationInput = { chatId: `id-${chatShortId}`, chatShortId, projectId: 'project-1' };
  await h.withWorker(mocks, async (q) => {
    const handle = h.client.workflow.getHandle(workflowIds.chat(chatShortId));
    try {
      await sendChatTurn(q.target, conversation, turn(1));
      await body({ handle, q, conversation });
    } finally {
      await handle.terminate('test finished').catch(() => undefined);
    }
  });
}

const ended = (mocks: { finishChatReply: { calls: [Finish][] } }) =>
  mocks.finishChatReply.calls.map(([f]) => [f.assistantMessageId, f.status, f.text]);

describe('chatConversation', () => {
  it('answers turns strictly in turn order, whatever order they arrive in; a repeated turn is ignored; ends when idle', async () => {
    const { mocks, held, streaming } = activities();
    held.add(1);
    await withConversation(mocks, async ({ handle, q, conversation }) => {
      await until(() => streaming.includes(1));
      await sendChatTurn(q.target, conversation, turn(3));
      await handle.signal(chatMessageSignal, turn(2));
      await handle.signal(chatMessageSignal, turn(1));
      await until(async () => (await handle.query(chatStateQuery)).pending.length === 2);
      expect(await handle.query(chatStateQuery)).toEqual({ answered: 0, pending: [2, 3], current: 1 });

      held.delete(1);
      await until(() => mocks.finishChatReply.calls.length === 3);
      expect(streaming).toEqual([1, 2, 3]);
      expect(ended(mocks)).toEqual([
        ['assistant-1', 'COMPLETED', 'answer 1'],
        ['assistant-2', 'COMPLETED', 'answer 2'],
        ['assistant-3', 'COMPLETED', 'answer 3'],
      ]);
      // The last reply's activity has finished; the workflow records it when it next runs.
      await until(async () => (await handle.query(chatStateQuery)).answered === 3);
      expect(await handle.query(chatStateQuery)).toEqual({ answered: 3, pending: [], current: null });
      // Only the first turn titles the conversation.
      expect(mocks.titleChat.calls).toEqual([[{ chatId: conversation.chatId }]]);

      // An hour without messages (skipped by the test server): the workflow ends; the next message starts it again.
      await handle.result();
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    });
  });

  it('a reply cancelled while it waits its turn ends CANCELLED without asking the model', async () => {
    const { mocks, held, streaming } = activities();
    held.add(1);
    await withConversation(mocks, async ({ handle, q, conversation }) => {
      await until(() => streaming.includes(1));
      await sendChatTurn(q.target, conversation, turn(2));
      expect(await cancelChatReply(q.target, conversation.chatShortId, 'assistant-2')).toBe(true);
      await until(async () => (await handle.query(chatStateQuery)).pending.length === 1);
      held.delete(1);

      await until(() => mocks.finishChatReply.calls.length === 2);
      expect(streaming).toEqual([1]);
      expect(ended(mocks)).toEqual([
        ['assistant-1', 'COMPLETED', 'answer 1'],
        ['assistant-2', 'CANCELLED', undefined],
      ]);
      expect((await handle.query(chatStateQuery)).answered).toBe(1);
    });
  });

  it('the reply being written is cancelled: it ends CANCELLED and the next turn is answered', async () => {
    const { mocks, held, streaming } = activities();
    held.add(1);
    await withConversation(mocks, async ({ handle, q, conversation }) => {
      await until(() => streaming.includes(1));
      await sendChatTurn(q.target, conversation, turn(2));
      await handle.signal(chatMessageSignal, turn(2));
      expect(await cancelChatReply(q.target, conversation.chatShortId, 'assistant-1')).toBe(true);

      await until(() => mocks.finishChatReply.calls.length === 2);
      expect(streaming).toEqual([1, 2]);
      expect(ended(mocks)).toEqual([
        ['assistant-1', 'CANCELLED', undefined],
        ['assistant-2', 'COMPLETED', 'answer 2'],
      ]);
    });
  });
});
