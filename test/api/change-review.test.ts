import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { countRows } from '../support/row-counts.js';

// The change-review contract without a worker: what POST /v1/chat/change-review accepts, writes and starts, and
// what GET /v1/chat/{id}/review answers before anything ran. test/e2e/change-review.test.ts runs reviews.

const diff = `diff --git a/src/checkout/Checkout.tsx b/src/checkout/Checkout.tsx
index 1111111..2222222 100644
--- a/src/checkout/Checkout.tsx
+++ b/src/checkout/Checkout.tsx
@@ -10,3 +10,4 @@ export function Checkout() {
   const [shipping, setShipping] = useState('standard');
+  const express = shipping === 'express';
   return <form onSubmit={placeOrder}>
diff --git a/public/logo.png b/public/logo.png
Binary files a/public/logo.png and b/public/logo.png differ
`;

describe.each(databaseKinds)('change review API (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let appShortId: string;
  let overrides: unknown[];

  beforeAll(async () => {
    appShortId = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    overrides = [{ applicationShortId: appShortId, environment: { url: 'https://preview-42.shop.test' } }];
  });

  const counts = async () =>
    Promise.all((['chats', 'chat_messages', 'change_reviews'] as const).map((table) => countRows(ctx.db, table)));

  const actionMetadata = {
    projectShortId: 'proj_1',
    actor: 'octocat',
    branch: 'feature/express',
    commitHash: 'abc123',
    commitMessage: 'Add express shipping',
    repository: 'acme/shop',
  };

  it('raw mode: 202 with the conversation, the request as its first message, the review queued and its workflow started', async () => {
    const created = await ctx.call('POST', '/v1/chat/change-review', {
      mode: 'rawChanges',
      changes: { changeDescription: 'Express shipping at checkout', diff },
      applicationOverrides: overrides,
      context: 'Focus on checkout',
      // What QA.tech's action sends along: accepted and kept, never refused.
      ...actionMetadata,
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ source: 'api', messages: [] });
    const { shortId } = created.body;

    const chat = (await ctx.call('GET', `/v1/chat/${shortId}`)).body;
    expect(chat.messages.map((m: any) => [m.role, m.status])).toEqual([
      ['assistant', 'INITIATED'],
      ['user', 'COMPLETED'],
    ]);
    const request: string = chat.messages[1].text;
    expect(request).toContain('Review these changes: Express shipping at checkout');
    expect(request).toContain('- src/checkout/Checkout.tsx (modified, +1 -0)');
    expect(request).toContain('- public/logo.png (modified, binary)');
    expect(request).toContain('actor: octocat');
    expect(request).toContain('Context: Focus on checkout');

    const review = await ctx.call('GET', `/v1/chat/${shortId}/review`);
    expect(review.status).toBe(200);
    expect(review.body).toMatchObject({
      chatShortId: shortId,
      mode: 'rawChanges',
      source: 'api',
      state: 'QUEUED',
      verdict: null,
      tests: [],
      runShortId: null,
      metadata: actionMetadata,
    });
    // Started under the conversation's id (no worker polls this test's queue, so it waits there).
    const described = await (await ctx.deps.temporal.get()).workflow.getHandle(`chat:${shortId}`).describe();
    expect(described.type).toBe('changeReview');
  });

  /** A PR-mode review request as QA.tech's action sends it, with `overrides` unless other ones are given. */
  const reviewPr = (prUrl: string, vcsProviderId: string, applicationOverrides: unknown[] = overrides) =>
    ctx.call('POST', '/v1/chat/change-review', { mode: 'pr', prUrl, vcsProviderId, applicationOverrides });

  it('PR mode: takes a GitHub pull request or a GitLab merge request address; refuses other addresses and a provider without integration, writing nothing', async () => {
    const noIntegration = await reviewPr('https://github.com/acme/shop/pull/42', 'github');
    expect(noIntegration).toMatchObject({
      status: 404,
      body: { message: 'GitHub integration not found: connect one with POST /v1/git-integrations first' },
    });
    expect(
      (await ctx.call('POST', '/v1/git-integrations', { provider: 'github', auth: 'token', token: 'ghp_review' }))
        .status,
    ).toBe(201);
    expect((await ctx.call('POST', '/v1/git-integrations', { provider: 'gitlab', token: 'glpat-review' })).status).toBe(
      201,
    );
    const github = await reviewPr('https://github.com/acme/shop/pull/42', 'github');
    expect(github.status).toBe(202);
    expect((await ctx.call('GET', `/v1/chat/${github.body.shortId}/review`)).body).toMatchObject({
      mode: 'pr',
      prUrl: 'https://github.com/acme/shop/pull/42',
      state: 'QUEUED',
    });
    const gitlab = await reviewPr('https://gitlab.example.com/acme/web/shop/-/merge_requests/7', 'gitlab', []);
    expect(gitlab.status).toBe(202);

    const before = await counts();
    const wrong = await reviewPr('https://github.com/acme/shop/issues/42', 'github');
    expect(wrong).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^prUrl: not a GitHub pull request URL/) },
    });
    const crossed = await reviewPr('https://github.com/acme/shop/pull/42', 'gitlab');
    expect(crossed.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('rejects bad input with a 400 naming the field (applicationOverrides required), unknown references with a 404, and writes nothing', async () => {
    const before = await counts();
    const raw = { mode: 'rawChanges', changes: { changeDescription: 'x', diff } };
    const cases: [unknown, number, RegExp][] = [
      [{ ...raw }, 400, /applicationOverrides/],
      [{ changes: raw.changes, applicationOverrides: overrides }, 400, /mode/],
      [{ mode: 'patch', changes: raw.changes, applicationOverrides: overrides }, 400, /mode/],
      [
        { mode: 'rawChanges', changes: { changeDescription: '', diff }, applicationOverrides: overrides },
        400,
        /changes\.changeDescription/,
      ],
      [
        { mode: 'rawChanges', changes: { changeDescription: 'x', diff: '' }, applicationOverrides: overrides },
        400,
        /changes\.diff/,
      ],
      [{ mode: 'pr', vcsProviderId: 'github', applicationOverrides: overrides }, 400, /prUrl/],
      [
        {
          mode: 'pr',
          prUrl: 'https://github.com/a/b/pull/1',
          vcsProviderId: 'bitbucket',
          applicationOverrides: overrides,
        },
        400,
        /vcsProviderId/,
      ],
      [
        { ...raw, applicationOverrides: [{ applicationShortId: appShortId }] },
        400,
        /applicationOverrides\.0\.environment/,
      ],
      [
        { ...raw, applicationOverrides: [{ applicationShortId: 'app_nope', environment: { url: 'https://a.test' } }] },
        404,
        /^Application not found: app_nope$/,
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await ctx.call('POST', '/v1/chat/change-review', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toMatch(message);
    }
    expect(await counts()).toEqual(before);
  });

  it('makes a retried request with the same Idempotency-Key one review', async () => {
    const send = () =>
      ctx.app.request('/v1/chat/change-review', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ctx.tenant.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'review-1',
        },
        body: JSON.stringify({
          mode: 'rawChanges',
          changes: { changeDescription: 'Same change', diff },
          applicationOverrides: overrides,
        }),
      });
    const before = await counts();
    const [a, b] = [await send(), await send()];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(((await b.json()) as { shortId: string }).shortId).toBe(((await a.json()) as { shortId: string }).shortId);
    expect(await counts()).toEqual(before.map((n, i) => n + [1, 2, 1][i]!));
  });

  it('takes a raw diff far larger than the 1 MiB other bodies may be (a lock file), up to PROCTOR_MAX_DIFF_BYTES', async () => {
    const MiB = 1024 * 1024;
    // A dependency bump: the lock file's part of the diff is megabytes, the UI change a few lines.
    const lockLines = Array.from(
      { length: 40_000 },
      (_, i) => `+    "node_modules/package-${i}": { "version": "1.0.${i}", "integrity": "sha512-${'a'.repeat(40)}" },`,
    );
    const lockDiff = `diff --git a/package-lock.json b/package-lock.json\nindex 3333333..4444444 100644\n--- a/package-lock.json\n+++ b/package-lock.json\n@@ -1,1 +1,40001 @@\n {\n${lockLines.join('\n')}\n`;
    const big = diff + lockDiff;
    expect(big.length).toBeGreaterThan(4 * MiB);
    const created = await ctx.call('POST', '/v1/chat/change-review', {
      mode: 'rawChanges',
      changes: { changeDescription: 'Bump dependencies', diff: big },
      applicationOverrides: overrides,
    });
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(202);
    const request: string = (await ctx.call('GET', `/v1/chat/${created.body.shortId}`)).body.messages[1].text;
    expect(request).toContain('- package-lock.json (modified, +40000 -0)');
    const stored = await ctx.db
      .selectFrom('change_reviews')
      .select('diff')
      .where('project_id', '=', ctx.tenant.projectId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(stored.diff).toBe(big);
    // The same size is still refused elsewhere, and past the diff limit here, naming the setting to raise.
    const elsewhere = await ctx.call('POST', '/v1/applications', { name: 'Padded', padding: big });
    expect(elsewhere).toMatchObject({
      status: 413,
      body: { message: `Request body exceeds the ${MiB} byte limit (PROCTOR_MAX_BODY_BYTES)` },
    });
    const before = await counts();
    const huge = await ctx.call('POST', '/v1/chat/change-review', {
      mode: 'rawChanges',
      changes: { changeDescription: 'Vendored everything', diff: big.repeat(4) },
      applicationOverrides: overrides,
    });
    expect(huge).toMatchObject({
      status: 413,
      body: { message: `Request body exceeds the ${16 * MiB} byte limit (PROCTOR_MAX_DIFF_BYTES)` },
    });
    expect(await counts()).toEqual(before);
  });

  it('GET …/review is 404 for a plain conversation, an unknown one and one of another project', async () => {
    const plain = (await ctx.call('POST', '/v1/chat', { message: 'hi' })).body.shortId;
    expect((await ctx.call('GET', `/v1/chat/${plain}/review`)).body.message).toBe(
      `Change review not found: conversation ${plain} is not a change review`,
    );
    expect((await ctx.call('GET', '/v1/chat/chat_unknown/review')).status).toBe(404);
    const mine = (
      await ctx.call('POST', '/v1/chat/change-review', {
        mode: 'rawChanges',
        changes: { changeDescription: 'x', diff },
        applicationOverrides: [],
      })
    ).body.shortId;
    expect(await ctx.call('GET', `/v1/chat/${mine}/review`, undefined, ctx.other.token)).toMatchObject({
      status: 404,
      body: { message: 'Conversation not found' },
    });
  });

  it('documents both routes in the OpenAPI document', async () => {
    const doc = (await ctx.call('GET', '/v1/openapi.json')).body;
    expect(doc.paths['/v1/chat/change-review'].post.responses).toHaveProperty('202');
    expect(doc.paths['/v1/chat/{chatConversationShortId}/review'].get.responses).toHaveProperty('200');
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['ChangeReviewRequest', 'ChangeReviewRawChanges', 'ChangeReview']),
    );
  });
});
