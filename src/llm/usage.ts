// Usage of one completion as the adapters record it: the server's `usage` when it sent one, else an estimate from
// the characters sent and received (marked estimated, so no total passes an estimate off as the server's count).
import type OpenAI from 'openai';
import { estimateTokens, type LlmCallUsage } from '../domain/llm-usage.js';

export function callUsage(
  model: string,
  reported: OpenAI.CompletionUsage | null | undefined,
  sent: { messages: unknown; tools?: unknown },
  received: () => string,
): LlmCallUsage {
  if (reported && Number.isFinite(reported.prompt_tokens) && Number.isFinite(reported.completion_tokens)) {
    return {
      model,
      promptTokens: reported.prompt_tokens,
      completionTokens: reported.completion_tokens,
      cachedTokens: reported.prompt_tokens_details?.cached_tokens ?? 0,
      estimated: false,
    };
  }
  const prompt = JSON.stringify(sent.messages).length + (sent.tools ? JSON.stringify(sent.tools).length : 0);
  return {
    model,
    promptTokens: estimateTokens(prompt),
    completionTokens: estimateTokens(received().length),
    cachedTokens: 0,
    estimated: true,
  };
}
