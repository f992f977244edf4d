import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { createApiContext, terminateRunningWorkflows, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { installOnFakeProviders } from '../support/merge-request-stack.js';
import {
  gitlabDeploymentEvent,
  gitlabMergeRequestEvent,
  gitlabNoteEvent,
  type Payload,
} from '../support/webhook-payloads.js';

// Issue 23: the webhook endpoints fuzzed with fixed seeds, through the real app on Postgres and the test Temporal
// server. Without a valid signature every request, whatever its payload and headers, is the one 401 and leaves no
// row and starts no workflow. With a valid signature (GitHub's 329 real example payloads and GitLab's documented
// shapes, mutated) the parsers never fail: no 5xx.

const seed = 2323;
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];
const githubEvents = examples.map((e) => e.name);
const gitlabEvents = [
  'Merge Request Hook',
  'Note Hook',
  'Deployment Hook',
  'Pipeline Hook',
  'Push Hook',
  'System Hook',
];
const refused = {
  github: { status: 401, body: { message: 'Unauthorized: X-Hub-Signature-256 is missing or does not match' } },
  gitlab: { status: 401, body: { message: 'Unauthorized: X-Gitlab-Token is missing or does not match' } },
};
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
// Header values as HTTP carries them (printable ASCII): anything else never leaves the client.
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

describe('fuzz: POST /webhooks/github and /webhooks/gitlab', () => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let gitlabToken: string;
  const secret = `whsec-${randomBytes(8).toString('hex')}`;
  const repo = `fuzz-${randomBytes(3).toString('hex')}/shop`;
  const gitlabRepo = `fuzz-group-${randomBytes(3).toString('hex')}/shop`;
  const counts = { unsigned: 0, signed: 0 };

  beforeAll(async () => {
    [ctx, gh, gl] = await Promise.all([createApiContext('postgres'), startFakeGitHub(), startFakeGitLab()]);
    const { integrations } = installOnFakeProviders(gh, gl, {
      githubRepo: repo,
      gitlabRepo,
      gitlabToken: 'glpat-fuzz',
      webhookSecret: secret,
    });
    const created = [
      await ctx.call('POST', '/v1/git-integrations', integrations.github),
      await ctx.call('POST', '/v1/git-integrations', integrations.gitlab),
      await ctx.call('PUT', '/v1/merge-request-review-settings', { provider: 'github', repository: repo }),
      await ctx.call('PUT', '/v1/merge-request-review-settings', { provider: 'gitlab', repository: gitlabRepo }),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 200, 200]);
    gitlabToken = gl.hooks(gitlabRepo)[0]!.token!;
  });
  afterAll(async () => {
    await terminateRunningWorkflows(ctx);
    await Promise.all([ctx.close(), gh.close(), gl.close()]);
  });

  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const res = await ctx.app.request(path, { method: 'POST', headers, body });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // Kept as text for the failure message.
    }
    return { status: res.status, body: json };
  };
  const sideEffects = async () => ({
    deliveries: (await ctx.db.selectFrom('webhook_deliveries').select('delivery_id').execute()).length,
    mergeRequests: (await ctx.db.selectFrom('merge_requests').select('number').execute()).length,
    deployments: (await ctx.db.selectFrom('merge_request_deployments').select('sha').execute()).length,
  });
  const workflowsStarted = async () => {
    const client = await ctx.deps.temporal.get();
    return (await client.workflow.count(`TaskQueue = '${ctx.deps.temporal.taskQueue}'`)).count;
  };

  /** A real GitHub example (any event), or a GitLab one, pointed at the configured repository or another one. */
  const payload = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.nat(), fc.nat(), fc.boolean())
        .map(([e, x, ours]) => githubPayload(e, x, ours ? repo : 'someone/else')),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('mr', 'note', 'deploy'), fc.integer({ min: 1, max: 50 }), fc.boolean())
        .map(([kind, iid, ours]) => gitlabPayload(kind, iid, ours ? gitlabRepo : 'someone/else')),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(
        fc.constantFrom('repository', 'project', 'hook', 'action', 'object_kind', 'pull_request'),
        fc.jsonValue({ maxDepth: 3 }),
      ),
    },
  );
  /** Some bytes of the body, a byte flipped now and then. */
  const body = fc.oneof(
    { weight: 6, arbitrary: payload.map((p) => JSON.stringify(p)) },
    {
      weight: 1,
      arbitrary: fc.tuple(payload, fc.nat()).map(([p, i]) => {
        const s = JSON.stringify(p) ?? '';
        return s.slice(0, i % (s.length + 1));
      }),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  );

  it('without a valid signature: 1,200 random deliveries, each the same 401, with no row written and no workflow started', async () => {
    const before = await sideEffects();
    const provider = fc.constantFrom('github' as const, 'gitlab' as const);
    const forged = (b: string) =>
      fc.oneof(
        fc.constant(undefined),
        headerText(80),
        fc.stringMatching(/^sha256=[0-9a-f]{64}$/),
        headerText(40).map((s) => sign(s, b)),
        fc.constant(sign(secret, `${b} `)),
        fc.constant(sign(secret, b).toUpperCase()),
        fc.constant(sign(secret, b).slice(0, -1)),
        fc.constant(`${gitlabToken}x`),
        fc.constant(gitlabToken.slice(1)),
        fc.constant(secret.slice(0, -1)),
      );
    const headers = fc.record(
      {
        event: fc.oneof(fc.constantFrom(...githubEvents, ...gitlabEvents, 'ping'), headerText(30)),
        delivery: fc.oneof(fc.uuid(), headerText(300)),
        appTarget: fc.oneof(fc.constant('integration'), headerText(12)),
        appId: fc.oneof(fc.nat().map(String), headerText(25)),
        contentType: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
      },
      { requiredKeys: [] },
    );
    const delivery = fc
      .tuple(provider, body, headers)
      .chain(([p, b, h]) => fc.tuple(fc.constant(p), fc.constant(b), fc.constant(h), forged(b)));
    await fc.assert(
      fc.asyncProperty(delivery, async ([p, b, h, signature]) => {
        counts.unsigned++;
        const sent: Record<string, string> = {};
        if (h.contentType) sent['content-type'] = h.contentType;
        if (p === 'github') {
          Object.assign(
            sent,
            h.event !== undefined && { 'x-github-event': h.event },
            h.delivery !== undefined && { 'x-github-delivery': h.delivery },
          );
          Object.assign(
            sent,
            h.appTarget !== undefined && { 'x-github-hook-installation-target-type': h.appTarget },
            h.appId !== undefined && { 'x-github-hook-installation-target-id': h.appId },
          );
          if (signature !== undefined) sent['x-hub-signature-256'] = signature;
        } else {
          Object.assign(
            sent,
            h.event !== undefined && { 'x-gitlab-event': h.event },
            h.delivery !== undefined && { 'idempotency-key': h.delivery },
          );
          if (signature !== undefined && signature !== gitlabToken) sent['x-gitlab-token'] = signature;
        }
        // The one case a random signature could be right: GitHub's HMAC of these very bytes.
        fc.pre(!(p === 'github' && signature === sign(secret, b)));
        expect(await post(`/webhooks/${p}`, b, sent), `${p} ${JSON.stringify(sent)} ${b.slice(0, 200)}`).toEqual(
          refused[p],
        );
      }),
      { seed, numRuns: 1_200 },
    );
    expect(await sideEffects()).toEqual(before);
    expect(await workflowsStarted()).toBe(0);
  }, 90_000);

  it('with a valid signature: 400 real payloads of every event, some fields replaced by random JSON, never answer 5xx', async () => {
    const junk = fc.option(fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 3 })), { freq: 3 });
    const github = fc
      .tuple(
        fc.nat(),
        fc.nat(),
        fc.oneof({ weight: 4, arbitrary: fc.constant(repo) }, fc.constant('someone/else')),
        junk,
      )
      .map(([e, x, r, j]) => {
        const definition = examples[e % examples.length]!;
        return { provider: 'github' as const, event: definition.name, payload: mutate(githubPayload(e, x, r), j) };
      });
    const gitlabKinds = { mr: 'Merge Request Hook', note: 'Note Hook', deploy: 'Deployment Hook' } as const;
    const gitlab = fc
      .tuple(fc.constantFrom('mr' as const, 'note' as const, 'deploy' as const), fc.integer({ min: 1, max: 50 }), junk)
      .map(([kind, iid, j]) => ({
        provider: 'gitlab' as const,
        event: gitlabKinds[kind],
        payload: mutate(gitlabPayload(kind, iid, gitlabRepo), j),
      }));
    const event = (own: string) =>
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(own) },
        fc.constantFrom(...githubEvents, ...gitlabEvents),
        headerText(30),
      );
    const delivery = fc.oneof(github, gitlab).chain((d) =>
      fc.record({
        d: fc.constant(d),
        event: event(d.event),
        id: fc.oneof({ weight: 6, arbitrary: fc.uuid() }, headerText(250)),
      }),
    );
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(delivery, async ({ d, event: e, id }) => {
        counts.signed++;
        const b = JSON.stringify(d.payload);
        const sent: Record<string, string> =
          d.provider === 'github'
            ? {
                'content-type': 'application/json',
                'x-github-event': e,
                'x-github-delivery': id,
                'x-hub-signature-256': sign(secret, b),
              }
            : {
                'content-type': 'application/json',
                'x-gitlab-event': e,
                'idempotency-key': id,
                'x-gitlab-token': gitlabToken,
              };
        const answer = await post(`/webhooks/${d.provider}`, b, sent);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(
          answer.status,
          `${d.provider} ${JSON.stringify(sent)} ${b.slice(0, 300)}: ${JSON.stringify(answer.body)}`,
        ).toBeLessThan(500);
        expect(answer.body, JSON.stringify(answer.body)).toEqual({ message: expect.any(String) });
      }),
      { seed, numRuns: 400 },
    );
    // The authenticated path was really exercised: accepted deliveries as well as acknowledgements.
    expect(statuses.get(202) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(10);
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(10);
    expect(counts.signed).toBe(400);
  }, 90_000);
});

/** The payload with one top-level field (picked by index) replaced by random JSON, when `junk` is given. */
function mutate(payload: Payload, junk: [number, unknown] | null): Payload {
  if (!junk) return payload;
  const keys = Object.keys(payload);
  return { ...payload, [keys[junk[0] % keys.length]!]: junk[1] };
}

function githubPayload(event: number, example: number, repository: string): Payload {
  const definition = examples[event % examples.length]!;
  const payload = structuredClone(definition.examples[example % definition.examples.length]) as Payload;
  if (payload.repository) payload.repository.full_name = repository;
  else payload.repository = { full_name: repository };
  return payload;
}

function gitlabPayload(kind: 'mr' | 'note' | 'deploy', iid: number, project: string): Payload {
  // Derived, not random, so a seed replays the same deliveries.
  const mr = {
    project,
    iid,
    sha: createHash('sha1').update(`${project}#${iid}`).digest('hex'),
    web: 'https://gitlab.example.com',
  };
  if (kind === 'mr') return gitlabMergeRequestEvent(mr, 'open');
  if (kind === 'note') return gitlabNoteEvent(mr, '@proctor please test https://preview.example.com');
  return gitlabDeploymentEvent(mr, 'review', 'https://preview.example.com');
}
