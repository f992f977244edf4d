import { createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { ErrorSchema, json, type OpenApiApp } from '../openapi.js';
import { handleDelivery, type Delivery } from '../../services/webhooks.js';
import type { GitProviderId } from '../../domain/git.js';
import type { ApiServices } from '../context.js';

// Outside /v1 and without a Bearer token: the provider authenticates each delivery by its signature or token,
// checked before anything else is answered (src/services/webhook-verification.ts). Headers are therefore not
// validated here: a 400 for a malformed header would answer a stranger before the signature is checked.

// GitHub caps a delivery at 25 MB; GitLab's are smaller.
const maxWebhookBytes = 25 * 1024 * 1024;
const Message = z.object({ message: z.string() }).openapi('WebhookAnswer');
const answers = {
  200: json(
    Message,
    'Acknowledged, nothing to do: a redelivery already processed, a ping, an event Proctor does not act on, or (GitHub App) a repository no project reviews',
  ),
  202: json(
    Message,
    "Recorded, and the affected merge requests' reviews signalled; or, when the workflow engine is unavailable, recorded with the signals it will be sent once the engine is back",
  ),
  400: json(ErrorSchema, 'Authenticated, but not JSON, or a required header is missing'),
  401: json(
    ErrorSchema,
    'The signature (GitHub) or token (GitLab) is missing or does not match, or no merge-request review is configured for the repository: one answer for all three, and nothing is recorded',
  ),
  413: json(ErrorSchema, `Body larger than ${maxWebhookBytes / 1024 / 1024} MiB`),
} as const;

const githubHeaders = z.object({
  'x-github-event': z.string().optional().openapi({ example: 'pull_request' }),
  'x-github-delivery': z.string().optional().openapi({ example: '72d3162e-cc78-11e3-81ab-4c9367dc0958' }),
  'x-hub-signature-256': z.string().optional().openapi({
    example: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    description: "HMAC-SHA256 of the body with the GitHub App's webhook secret",
  }),
  'x-github-hook-installation-target-type': z.string().optional().openapi({ example: 'integration' }),
  'x-github-hook-installation-target-id': z
    .string()
    .optional()
    .openapi({ example: '29310', description: "The GitHub App's id when the target type is `integration`" }),
});
const gitlabHeaders = z.object({
  'x-gitlab-event': z.string().optional().openapi({ example: 'Merge Request Hook' }),
  'x-gitlab-token': z.string().optional().openapi({ description: 'The secret token Proctor set on the project hook' }),
  'idempotency-key': z
    .string()
    .optional()
    .openapi({ description: 'The same for every retry of a delivery (GitLab 17.4+)' }),
  'x-gitlab-event-uuid': z.string().optional(),
});

const description = (what: string) =>
  `${what} The body is the provider's JSON payload, verified byte for byte. Each delivery id is processed once; a redelivery is acknowledged. ` +
  "The answer comes at once: reviews run in the merge request's `mergeRequestReview` workflow.";

const routes = {
  github: createRoute({
    method: 'post',
    path: '/webhooks/github',
    tags: ['Merge request review'],
    summary: 'GitHub App webhook',
    description: description(
      'Pull request, issue comment and deployment status events; push events of a repository a project keeps its tests in (Git sync).',
    ),
    request: { headers: githubHeaders },
    responses: answers,
  }),
  gitlab: createRoute({
    method: 'post',
    path: '/webhooks/gitlab',
    tags: ['Merge request review'],
    summary: 'GitLab project webhook',
    description: description(
      'Merge request, note, deployment and pipeline events of the hook Proctor created; push events for Git sync.',
    ),
    request: { headers: gitlabHeaders },
    responses: answers,
  }),
};

export function registerWebhooks(app: OpenApiApp): void {
  app.use(
    '/webhooks/*',
    bodyLimit({
      maxSize: maxWebhookBytes,
      onError: (c) => c.json({ message: `Webhook body larger than ${maxWebhookBytes / 1024 / 1024} MiB` }, 413),
    }),
  );
  const handle = (provider: GitProviderId, services: ApiServices, delivery: Delivery) =>
    handleDelivery({ db: services.db, temporal: services.temporal, logger: services.logger }, provider, delivery);
  app.openapi(routes.github, async (c) => {
    const h = c.req.valid('header');
    const appId =
      h['x-github-hook-installation-target-type'] === 'integration'
        ? h['x-github-hook-installation-target-id']
        : undefined;
    const body = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await handle('github', c.get('services'), {
      deliveryId: h['x-github-delivery'],
      event: h['x-github-event'],
      signature: h['x-hub-signature-256'],
      appId,
      body,
    });
    return c.json({ message: outcome.message }, outcome.status);
  });
  app.openapi(routes.gitlab, async (c) => {
    const h = c.req.valid('header');
    const deliveryId = h['idempotency-key'] ?? h['x-gitlab-event-uuid'];
    const body = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await handle('gitlab', c.get('services'), {
      deliveryId,
      event: h['x-gitlab-event'],
      signature: h['x-gitlab-token'],
      body,
    });
    return c.json({ message: outcome.message }, outcome.status);
  });
}
