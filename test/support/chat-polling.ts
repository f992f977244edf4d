import type { Stack } from './worker-context.js';

// The client side of the chat contract (api-v1 §4 "Polling rules for chat"), recording every answer so tests
// can check what a poller saw on the way (PARTIAL states with growing text).

export interface ChatPoll {
  /** The newest message of every answer, in order. */
  seen: { role: string; status: string; isStreaming: boolean; text: string }[];
  /** The last answer: messages[0] is the finished reply. */
  final: any;
}

export const isFinished = (conversation: any): boolean => {
  const newest = conversation.messages?.[0];
  return newest?.role === 'assistant' && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(newest.status);
};

/** Polls GET /v1/chat/{id} every `intervalMs` until the spec's stop rule holds. */
export async function pollChat(
  stack: Pick<Stack, 'call'>,
  shortId: string,
  opts: { intervalMs?: number; timeoutMs?: number; onAnswer?: (c: any) => void | Promise<void> } = {},
): Promise<ChatPoll> {
  const seen: ChatPoll['seen'] = [];
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    const res = await stack.call('GET', `/v1/chat/${shortId}`);
    if (res.status !== 200) throw new Error(`GET /v1/chat/${shortId}: ${res.status} ${JSON.stringify(res.body)}`);
    const newest = res.body.messages[0];
    if (newest)
      seen.push({ role: newest.role, status: newest.status, isStreaming: newest.isStreaming, text: newest.text });
    await opts.onAnswer?.(res.body);
    if (isFinished(res.body)) return { seen, final: res.body };
    if (Date.now() > deadline)
      throw new Error(`chat ${shortId} did not finish; last answer: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/** The distinct texts seen while the reply was PARTIAL and streaming, in order. */
export function partialTexts(poll: ChatPoll): string[] {
  const texts = poll.seen
    .filter((s) => s.role === 'assistant' && s.status === 'PARTIAL' && s.isStreaming)
    .map((s) => s.text);
  return texts.filter((t, i) => t !== texts[i - 1]);
}
