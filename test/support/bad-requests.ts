// The check every API resource's validation test makes: each bad body is refused with a 400 whose message names the
// field at fault, so that a client can tell its user what to fix.
import { expect } from 'vitest';

type Send = (body: any) => Promise<{ status: number; body: any }>;

/** Each body, sent by `send`, is answered 400 with a message that matches its pattern. */
export async function expectBadRequests(
  send: Send,
  cases: readonly (readonly [body: unknown, message: RegExp])[],
): Promise<void> {
  for (const [body, message] of cases) {
    const res = await send(body);
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(res.body.message).toMatch(message);
  }
}
