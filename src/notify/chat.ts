import type { SlackBlock } from './message.js';

/** The body of a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat accept this shape). */
export interface ChatWebhookPayload {
  text: string;
  /**
   * Channel to post to. Legacy Slack webhooks, Mattermost and Rocket.Chat honour it; a Slack app webhook is
   * bound to one channel and ignores it.
   */
  channel?: string;
  blocks?: SlackBlock[];
}

/** POSTs the payload; a non-2xx answer or a timeout throws. The URL is a secret and never appears in the error. */
export async function postChatWebhook(
  url: string,
  payload: ChatWebhookPayload,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 10_000,
): Promise<void> {
  const body: ChatWebhookPayload = { text: payload.text };
  if (payload.channel) body.channel = payload.channel;
  if (payload.blocks && payload.blocks.length > 0) body.blocks = payload.blocks;
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const cause =
      err instanceof Error
        ? err.name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : describe(err)
        : String(err);
    throw new Error(`chat webhook unreachable: ${cause}`, { cause: err });
  }
  if (res.ok) {
    await res.body?.cancel();
    return;
  }
  const snippet = (await res.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
  throw new Error(`chat webhook answered ${res.status}${snippet ? `: ${snippet}` : ''}`);
}

// undici's "fetch failed" hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
function describe(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return cause ? `${err.message} (${typeof code === 'string' ? code : cause.message})` : err.message;
}
