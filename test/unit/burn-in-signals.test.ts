import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import type { QualitySignal } from '../../src/domain/quality.js';
import { recordBurnInSignals } from '../../src/services/issue-ingest.js';
import { listProjectIssues } from '../../src/services/issues.js';
import { freshDatabase } from '../support/app-context.js';

// A burn-in's signals become project issues like a replay's, once per burn-in: Temporal retries an activity that
// stored its signals and then failed (a worker lost before it reported), and that retry is not a second sighting.

const signals: QualitySignal[] = [
  {
    kind: 'exception',
    severity: 'serious',
    message: "TypeError: Cannot read properties of null (reading 'name')",
    url: 'https://shop.example/profile/4821',
    stepIndex: 2,
  },
  {
    kind: 'a11y',
    severity: 'critical',
    rule: 'label',
    message: 'Form elements must have labels',
    target: '#email <input id="email">',
    url: 'https://shop.example/profile/4821',
    stepIndex: 2,
  },
];

describe('burn-in signals', () => {
  let db: DB;
  let projectId: string;
  beforeAll(async () => {
    db = await freshDatabase('pglite');
    projectId = (await seedProject(db, { organization: 'Acme', project: 'Shop' })).projectId;
  });
  afterAll(async () => db?.destroy());

  it('fold into issues once per burn-in execution, however often its activity is retried', async () => {
    const testCaseId = randomUUID();
    const burnIn = `burn-in-${testCaseId}/run-1`;
    for (let attempt = 0; attempt < 3; attempt++)
      await recordBurnInSignals({ db }, { projectId, testCaseId, burnIn, signals });
    let { issues } = await listProjectIssues({ db }, projectId, { limit: 50, offset: 0 });
    expect(issues.map((i) => [i.kind, i.occurrences, i.status, i.testCaseIds])).toEqual(
      expect.arrayContaining([
        ['exception', 1, 'open', [testCaseId]],
        ['a11y', 1, 'open', [testCaseId]],
      ]),
    );
    expect(
      await db.selectFrom('quality_signals').select('burn_in').where('test_case_id', '=', testCaseId).execute(),
    ).toEqual([{ burn_in: burnIn }, { burn_in: burnIn }]);

    // The burn-in run again (a new execution) is a second sighting.
    await recordBurnInSignals({ db }, { projectId, testCaseId, burnIn: `burn-in-${testCaseId}/run-2`, signals });
    ({ issues } = await listProjectIssues({ db }, projectId, { limit: 50, offset: 0 }));
    expect(issues.map((i) => i.occurrences)).toEqual([2, 2]);
  });
});
