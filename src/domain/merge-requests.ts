// Pure rules of merge-request review, shared by the webhook handlers and the mergeRequestReview workflow.

/**
 * The environments whose deployment of the head commit is still awaited. With no environment mapping, any
 * successful deployment of the commit will do (the provider's default environment).
 */
export function missingDeployments(mappedEnvironments: string[], deployments: Record<string, string>): string[] {
  if (mappedEnvironments.length === 0)
    return Object.keys(deployments).length > 0 ? [] : ['a deployment of the head commit'];
  return mappedEnvironments.filter((env) => !deployments[env]);
}

const urlPattern = /https?:\/\/[^\s<>()"'`\]]+/i;

/**
 * A manual trigger: a comment that mentions `handle` (case-insensitive, as a whole word) and carries a URL, which
 * is the deployment to test. Null when the comment is not one.
 */
export function parseMention(text: string, handle: string): { url: string } | null {
  const name = handle.replace(/^@/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (!new RegExp(`(^|[^\\w@/.-])@${name}(?![\\w-])`, 'i').test(text)) return null;
  const url = urlPattern.exec(text)?.[0].replace(/[.,;:!?]+$/, '');
  return url ? { url } : null;
}

/** `@proctor`, `@qa.bot`: the handle a user mentions (stored with its `@`). */
export function normalizeHandle(handle: string): string {
  const trimmed = handle.trim();
  return trimmed.startsWith('@') ? trimmed : `@${trimmed}`;
}
