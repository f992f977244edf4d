// Push webhook payloads of GitHub (`push`) and GitLab (`Push Hook`), read down to what Git sync needs: which
// branch moved, and to which commit. Loosely checked, as the review events are (webhook-events.ts).
import { z } from 'zod';
import type { GitProviderId } from '../domain/git.js';

export const isPushEvent = (provider: GitProviderId, event: string) =>
  provider === 'github' ? event === 'push' : event === 'Push Hook';

const push = z.object({
  ref: z.string(),
  after: z.string().regex(/^[0-9a-f]{40}$/),
  deleted: z.boolean().optional(),
});

// A deleted branch's push carries 40 zeros as `after` (both providers).
const noCommit = /^0{40}$/;

/** The branch a push moved and its new head; undefined for a tag, a deletion or a payload that is not a push. */
export function pushedBranch(payload: unknown): { branch: string; head: string } | undefined {
  const p = push.safeParse(payload);
  if (!p.success || p.data.deleted || noCommit.test(p.data.after) || !p.data.ref.startsWith('refs/heads/'))
    return undefined;
  return { branch: p.data.ref.slice('refs/heads/'.length), head: p.data.after };
}
