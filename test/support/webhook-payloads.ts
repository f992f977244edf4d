// Webhook deliveries as the providers send them: GitHub's real example payloads (@octokit/webhooks-examples) signed
// with the App's webhook secret, and GitLab payloads shaped as GitLab documents them, with the hook's secret token.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import type { WebhookDefinition } from '@octokit/webhooks-examples';

// The package's main is a JSON file; its type declaration describes it.
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

export type Payload = Record<string, any>;

/** A deep copy of a real example payload of `event` that `pick` accepts, for a test to point at its repository. */
export function githubExample(event: string, pick: (p: Payload) => boolean): Payload {
  const found = examples.find((e) => e.name === event)?.examples.find((p) => pick(p as Payload));
  if (!found) throw new Error(`no ${event} example`);
  return structuredClone(found) as Payload;
}

export interface Delivered {
  status: number;
  body: { message: string };
}

export type Post = (path: string, body: string, headers: Record<string, string>) => Promise<Delivered>;

/** Delivers as GitHub does: `X-GitHub-Event`, `X-GitHub-Delivery` and the HMAC-SHA256 signature of the exact body. */
export async function deliverGitHub(
  post: Post,
  secret: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): Promise<Delivered> {
  const body = JSON.stringify(payload);
  const signature = await new Webhooks({ secret }).sign(body);
  return post('/webhooks/github', body, {
    'x-github-event': event,
    'x-github-delivery': deliveryId,
    'x-hub-signature-256': signature,
  });
}

/** Delivers as GitLab does: `X-Gitlab-Event`, the hook's token, an `Idempotency-Key` kept across retries. */
export function deliverGitLab(
  post: Post,
  token: string,
  event: string,
  payload: unknown,
  idempotencyKey: string = randomUUID(),
): Promise<Delivered> {
  return post('/webhooks/gitlab', JSON.stringify(payload), {
    'x-gitlab-event': event,
    'x-gitlab-token': token,
    'idempotency-key': idempotencyKey,
    'x-gitlab-event-uuid': randomUUID(),
  });
}

/** An app's `request` as a delivery poster. */
export function poster(app: { request(path: string, init: RequestInit): Response | Promise<Response> }): Post {
  return async (path, body, headers) => {
    const res = await app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as { message: string } };
  };
}

const gitlabUser = { id: 1, name: 'Administrator', username: 'root', avatar_url: null, email: '[REDACTED]' };
const gitlabProject = (path: string, web: string) => ({
  id: 1,
  name: path.split('/').at(-1),
  path_with_namespace: path,
  web_url: `${web}/${path}`,
  default_branch: 'main',
});

export interface GitLabMr {
  project: string;
  iid: number;
  sha: string;
  web: string;
  draft?: boolean;
  branch?: string;
}

const mrAttributes = (mr: GitLabMr) => ({
  iid: mr.iid,
  title: 'Cart badge',
  url: `${mr.web}/${mr.project}/-/merge_requests/${mr.iid}`,
  source_branch: mr.branch ?? 'feature/cart',
  target_branch: 'main',
  state: 'opened',
  draft: mr.draft ?? false,
  work_in_progress: mr.draft ?? false,
  last_commit: {
    id: mr.sha,
    message: 'Cart badge',
    title: 'Cart badge',
    author: { name: 'Administrator', email: 'admin@example.com' },
  },
});

/** A "Merge Request Hook" payload (GitLab docs: Merge request events). */
export function gitlabMergeRequestEvent(
  mr: GitLabMr,
  action: 'open' | 'update' | 'reopen' | 'close',
  extra: { oldrev?: string; changes?: Payload } = {},
): Payload {
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: gitlabUser,
    project: gitlabProject(mr.project, mr.web),
    object_attributes: { ...mrAttributes(mr), action, ...(extra.oldrev && { oldrev: extra.oldrev }) },
    changes: extra.changes ?? {},
  };
}

/** A "Note Hook" payload on a merge request (GitLab docs: Comment on merge request). */
export function gitlabNoteEvent(mr: GitLabMr, note: string, noteId = 1244): Payload {
  return {
    object_kind: 'note',
    event_type: 'note',
    user: gitlabUser,
    project: gitlabProject(mr.project, mr.web),
    object_attributes: {
      id: noteId,
      note,
      noteable_type: 'MergeRequest',
      url: `${mr.web}/${mr.project}/-/merge_requests/${mr.iid}#note_${noteId}`,
    },
    merge_request: mrAttributes(mr),
  };
}

/** A "Deployment Hook" payload (GitLab docs: Deployment events): the commit by short sha and commit URL. */
export function gitlabDeploymentEvent(mr: GitLabMr, environment: string, url: string, status = 'success'): Payload {
  return {
    object_kind: 'deployment',
    status,
    status_changed_at: '2026-11-23 12:00:00 +0000',
    deployment_id: 15,
    deployable_id: 796,
    deployable_url: `${mr.web}/${mr.project}/-/jobs/796`,
    environment,
    environment_tier: 'staging',
    environment_slug: environment,
    environment_external_url: url,
    project: gitlabProject(mr.project, mr.web),
    short_sha: mr.sha.slice(0, 8),
    user: gitlabUser,
    user_url: `${mr.web}/root`,
    commit_url: `${mr.web}/${mr.project}/-/commit/${mr.sha}`,
    commit_title: 'Cart badge',
  };
}
