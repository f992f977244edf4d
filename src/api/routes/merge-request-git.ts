// What the merge-request routes need from the Git integrations: the project webhook (GitLab) and the webhook secret.
// Joined with src/services/git-integrations.ts when r2-git's integrations are merged.
import type { AppDeps } from '../context.js';
import type { EnsureProjectWebhook } from '../../services/merge-request-reviews.js';
import type { WebhookDeps } from '../../services/webhooks.js';
import { InvalidError } from '../../services/errors.js';

export interface MergeRequestGitPorts {
  ensureProjectWebhook: EnsureProjectWebhook;
  webhookSecret: WebhookDeps['webhookSecret'];
}

export function mergeRequestGitPorts(_deps: AppDeps): MergeRequestGitPorts {
  return {
    ensureProjectWebhook: () => Promise.reject(new InvalidError('Connect a GitLab integration to the project first')),
    webhookSecret: async () => undefined,
  };
}
