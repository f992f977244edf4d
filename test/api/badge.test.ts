import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, setOrganizationSuspended } from '../../src/db/queries/admin.js';
import { createTestPlan } from '../../src/db/queries/test-plans.js';
import type { RunStatus, TestResult } from '../../src/db/schema.js';
import { newShortId } from '../../src/ids.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { rowIdOf } from '../support/row-ids.js';

describe.each(databaseKinds)('GET /v1/badge.svg (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let badgeToken: string;
  let otherBadgeToken: string;
  let clock = Date.parse('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    badgeToken = (await createToken(ctx.db, ctx.tenant.projectId, 'badge')).token;
    otherBadgeToken = (await createToken(ctx.db, ctx.other.projectId, 'badge')).token;
  });

  const badge = (query: Record<string, string>, headers: Record<string, string> = {}) =>
    ctx.app.request(`/v1/badge.svg?${new URLSearchParams(query).toString()}`, { headers });

  /** 200 with an SVG; returns the SVG text. */
  async function svgOf(query: Record<string, string>): Promise<string> {
    const res = await badge(query);
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-store, max-age=0');
    expect(body).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(body.trimEnd().endsWith('</svg>')).toBe(true);
    return body;
  }

  /** The badge's visible text, from its accessible label: "label: message". */
  const ariaLabel = (svg: string) => /aria-label="([^"]*)"/.exec(svg)?.[1];

  async function plan(projectId: string, name: string): Promise<{ id: string; shortId: string }> {
    const shortId = await createTestPlan(ctx.db, projectId, { name });
    return { id: await rowIdOf(ctx.db, 'test_plans', shortId), shortId };
  }

  /** Each run is created a minute after the previous one. */
  async function run(
    projectId: string,
    testPlanId: string | null,
    status: RunStatus,
    result: TestResult | null = null,
  ): Promise<string> {
    clock += 60_000;
    const id = randomUUID();
    const finished = ['COMPLETED', 'ERROR', 'CANCELLED'].includes(status);
    await ctx.db
      .insertInto('runs')
      .values({
        id,
        short_id: newShortId('run'),
        project_id: projectId,
        test_plan_id: testPlanId,
        status,
        result,
        created_at: new Date(clock),
        finished_at: finished ? new Date(clock + 30_000) : null,
      })
      .execute();
    return id;
  }

  it('draws every state of the project’s latest run, and of one plan’s', async () => {
    expect(ariaLabel(await svgOf({ token: badgeToken }))).toBe('proctor: no runs');

    const smoke = await plan(ctx.tenant.projectId, 'Smoke');
    const nightly = await plan(ctx.tenant.projectId, 'Nightly');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: smoke.shortId }))).toBe('proctor: no runs');

    await run(ctx.tenant.projectId, smoke.id, 'COMPLETED', 'PASSED');
    const passing = await svgOf({ token: badgeToken });
    expect(ariaLabel(passing)).toBe('proctor: passing');
    expect(passing).toContain('>passing</text>');

    await run(ctx.tenant.projectId, nightly.id, 'COMPLETED', 'FAILED');
    expect(ariaLabel(await svgOf({ token: badgeToken }))).toBe('proctor: failing');
    // Per plan: Smoke's own latest run still passed.
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: smoke.shortId }))).toBe('proctor: passing');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: nightly.shortId }))).toBe('proctor: failing');

    const running = await run(ctx.tenant.projectId, smoke.id, 'RUNNING');
    expect(ariaLabel(await svgOf({ token: badgeToken }))).toBe('proctor: running');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: smoke.shortId }))).toBe('proctor: running');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: nightly.shortId }))).toBe('proctor: failing');

    await ctx.db
      .updateTable('runs')
      .set({ status: 'CANCELLED', finished_at: new Date(clock + 40_000) })
      .where('id', '=', running)
      .execute();
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: smoke.shortId }))).toBe('proctor: cancelled');

    await run(ctx.tenant.projectId, smoke.id, 'ERROR');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: smoke.shortId }))).toBe('proctor: error');

    // A run still INITIATED but older than the latest finished one does not make the badge "running".
    clock -= 10 * 60_000;
    await run(ctx.tenant.projectId, nightly.id, 'INITIATED');
    clock += 20 * 60_000;
    await run(ctx.tenant.projectId, nightly.id, 'COMPLETED', 'PASSED');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: nightly.shortId }))).toBe('proctor: passing');

    // Another project's runs never show.
    await run(ctx.other.projectId, null, 'COMPLETED', 'FAILED');
    expect(ariaLabel(await svgOf({ token: badgeToken, testPlanShortId: nightly.shortId }))).toBe('proctor: passing');
  });

  it('takes a custom label, escaped', async () => {
    const svg = await svgOf({ token: otherBadgeToken, label: 'e2e <staging>' });
    expect(ariaLabel(svg)).toMatch(/^e2e &lt;staging&gt;: /);
    expect(svg).not.toContain('<staging>');
    expect((await badge({ token: badgeToken, label: 'x'.repeat(65) })).status).toBe(400);
  });

  it('refuses a Bearer header, even with a valid badge token in the query', async () => {
    for (const authorization of [`Bearer ${ctx.tenant.token}`, `Bearer ${badgeToken}`]) {
      const res = await badge({ token: badgeToken }, { authorization });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/json/);
      expect(await res.json()).toEqual({
        message: 'the badge takes its token in the query string, not a Bearer header',
      });
    }
  });

  it('401 for a missing, unknown or revoked token; 403 for an API token in the query', async () => {
    const missing = await badge({});
    expect(missing.status).toBe(401);
    expect((await missing.json()).message).toMatch(/token=prb_/);

    for (const token of ['prb_doesnotexist', 'nonsense', badgeToken + 'x', '']) {
      const res = await badge({ token });
      expect(res.status, token).toBe(401);
      expect(await res.json()).toHaveProperty('message');
    }

    const revoked = await createToken(ctx.db, ctx.tenant.projectId, 'badge');
    await ctx.db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('id', '=', revoked.id).execute();
    expect((await badge({ token: revoked.token })).status).toBe(401);

    const apiToken = await badge({ token: ctx.tenant.token });
    expect(apiToken.status).toBe(403);
    expect((await apiToken.json()).message).toMatch(/badge token \(prb_/);
  });

  it('403 while the organization is suspended', async () => {
    await setOrganizationSuspended(ctx.db, ctx.other.organizationId, true);
    try {
      const res = await badge({ token: otherBadgeToken });
      expect(res.status).toBe(403);
      expect((await res.json()).message).toMatch(/suspended/);
    } finally {
      await setOrganizationSuspended(ctx.db, ctx.other.organizationId, false);
    }
    expect((await badge({ token: otherBadgeToken })).status).toBe(200);
  });

  it('404 for another project’s plan or an unknown one; 400 for a malformed plan id', async () => {
    const foreign = await plan(ctx.other.projectId, 'Theirs');
    const res = await badge({ token: badgeToken, testPlanShortId: foreign.shortId });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Test plan not found' });
    expect((await badge({ token: badgeToken, testPlanShortId: 'pln_unknown000000' })).status).toBe(404);
    expect((await badge({ token: badgeToken, testPlanShortId: 'app_notaplan' })).status).toBe(400);
  });

  it('is documented without bearer security, as image/svg+xml', async () => {
    const doc = (await (await ctx.app.request('/v1/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: unknown;
            tags: string[];
            description: string;
            responses: Record<string, { content?: Record<string, unknown> }>;
          }
        >
      >;
    };
    const op = doc.paths['/v1/badge.svg']?.get;
    expect(op).toBeDefined();
    expect(op!.security).toBeUndefined();
    expect(op!.tags).toEqual(['Runs']);
    expect(Object.keys(op!.responses['200']!.content!)).toEqual(['image/svg+xml']);
    expect(op!.description).toMatch(/octet-stream/);
  });
});
