// What the merge-request routes need from the Git integrations: the project webhook (GitLab) and the GitHub App's
// webhook secret. Joined with src/git's integrations when r2-git is merged.
import type { AppDeps } from '../context.js';
import type { EnsureProjectWebhook } from '../../services/merge-request-reviews.js';
import { InvalidError } from '../../services/errors.js';

export interface MergeRequestGitPorts {
  ensureProjectWebhook: EnsureProjectWebhook;
  githubWebhookSecrets(projectId: string): Promise<string[]>;
}

export function mergeRequestGitPorts(_deps: AppDeps): MergeRequestGitPorts {
  return {
    ensureProjectWebhook: () => Promise.reject(new InvalidError('Connect a GitLab integration to the project first')),
    githubWebhookSecrets: async () => [],
  };
}
