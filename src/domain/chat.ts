// Shapes of a chat turn that cross the workflow/activity boundary. Pure: the workflows import these types.

/** A reply's life: INITIATED, then PARTIAL while it streams, then ended once (COMPLETED, CANCELLED or FAILED). */
export type ChatMessageStatus = 'INITIATED' | 'PARTIAL' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

/** A reply still being written: it may still grow, and ending it (cancel, finish) is still allowed. */
export const openReplyStatuses: readonly ChatMessageStatus[] = ['INITIATED', 'PARTIAL'];

/** Whether a reply is still open (a missing reply, or a message without a status, is not). */
export const isReplyOpen = (status: ChatMessageStatus | null | undefined): boolean =>
  status != null && openReplyStatuses.includes(status);

/**
 * How a tool runs, as the turn workflow routes it: an activity (database work), a browser activity, or a first
 * activity that writes rows followed by a child workflow (a burn-in, a plan run).
 */
export type ChatToolRuns = 'activity' | 'browser' | 'burnIn' | 'planRun';

/** A tool the model asked for, with its parsed arguments. */
export interface ChatToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** From the tool registry (src/services/tools); absent in calls recorded before the registry said. */
  runs?: ChatToolRuns;
}

/** One model call that asked for tools, and what the tools answered (compact text, in call order). */
export interface ChatToolExchange {
  text: string;
  toolCalls: ChatToolCall[];
  results: { id: string; content: string }[];
}

/** A conversation's title from its first message: its first sentence, shortened on a word boundary. */
export function titleFrom(message: string, max = 80): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > max / 2 ? cut.lastIndexOf(' ') : cut.length)}…`;
}
