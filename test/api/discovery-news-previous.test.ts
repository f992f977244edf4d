import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MapPattern } from '../../src/domain/coverage.js';
import { silentLogger } from '../../src/logger.js';
import { sendDiscoveryNews } from '../../src/services/discovery-news.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { insertDiscoveryRows } from '../support/discovery-rows.js';
import { applicationIdOf } from '../support/recorded.js';

// The news of a scheduled discovery is what it found that the application's previous COMPLETED discovery had not.
// That one is found however many discoveries came between (an hourly schedule whose site was down for a weekend
// leaves hundreds of FAILED ones): it was looked for among the 200 newest only, and past them the news compared
// with nothing and said nothing.

const page = (pattern: string): MapPattern => ({ pattern, example: pattern, title: pattern, status: 200, forms: [] });

describe.each(databaseKinds)('the news of a scheduled discovery (%s)', (kind) => {
  const ctx = useApiContext(kind);

  it.each([0, 3, 250])('compares with the previous completed discovery across %i failed ones', async (failed) => {
    const app = await ctx.call('POST', '/v1/applications', { name: `Shop ${failed}` });
    const applicationId = await applicationIdOf(ctx.db, app.body.shortId as string);
    const projectId = ctx.tenant.projectId;
    const startUrl = 'https://shop.test/';
    let at = Date.UTC(2026, 10, 1);
    const insert = async (status: 'COMPLETED' | 'FAILED', map: MapPattern[]) => {
      const row = await insertDiscoveryRows(ctx.db, { projectId, applicationId, startUrl, status, map, nav: ['/'] });
      at += 60_000;
      await ctx.db
        .updateTable('discoveries')
        .set({ created_at: new Date(at) })
        .where('id', '=', row.id)
        .execute();
      return row;
    };
    const previous = await insert('COMPLETED', [page('/'), page('/orders')]);
    for (let i = 0; i < failed; i++) await insert('FAILED', []);
    const latest = await insert('COMPLETED', [page('/'), page('/orders'), page('/returns')]);

    const report = await sendDiscoveryNews(
      { db: ctx.db, logger: silentLogger, appUrl: 'http://127.0.0.1:3000' },
      { discoveryId: latest.id, scheduleId: randomUUID() },
    );
    expect({ previous: report.previousShortId, newPatterns: report.newPatterns }).toEqual({
      previous: previous.shortId,
      newPatterns: 1,
    });
  });
});
