import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import { findRow } from './rows.js';
import type { StepInsertionsTable } from '../schema.js';

export type StepInsertionRow = Selectable<StepInsertionsTable>;

export async function insertStepInsertion(
  db: DB,
  row: {
    id: string;
    projectId: string;
    testCaseId: string;
    position: number;
    description: string;
    basedOnVersion: number;
    actor: unknown;
  },
): Promise<void> {
  await db
    .insertInto('step_insertions')
    .values({
      id: row.id,
      project_id: row.projectId,
      test_case_id: row.testCaseId,
      position: row.position,
      description: row.description,
      based_on_version: row.basedOnVersion,
      actor: JSON.stringify(row.actor),
    })
    .execute();
}

/** The insertion of the project's test case (undefined: none, or another project's). */
export async function findStepInsertion(
  db: DB,
  projectId: string,
  testCaseId: string,
  id: string,
): Promise<StepInsertionRow | undefined> {
  return findRow(db, 'step_insertions', { id, project_id: projectId, test_case_id: testCaseId });
}

/** By id alone: for the worker, which was handed the id by the workflow. */
export async function getStepInsertion(db: DB, id: string): Promise<StepInsertionRow | undefined> {
  return db.selectFrom('step_insertions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An insertion of the test case still recording, if any: a second one would be based on the same version. */
export async function runningStepInsertion(db: DB, testCaseId: string): Promise<StepInsertionRow | undefined> {
  return findRow(db, 'step_insertions', { test_case_id: testCaseId, status: 'RUNNING' });
}

/**
 * Ends a RUNNING insertion; false when it had ended already (a retried activity finds its own write). The outcome
 * is written once: a late failure never overwrites a saved version.
 */
export async function finishStepInsertion(
  db: DB,
  id: string,
  outcome:
    { status: 'COMPLETED'; version: number; insertedSteps: number } | { status: 'FAILED'; failureReason: string },
): Promise<boolean> {
  const row = await db
    .updateTable('step_insertions')
    .set(
      outcome.status === 'COMPLETED'
        ? {
            status: 'COMPLETED',
            version: outcome.version,
            inserted_steps: outcome.insertedSteps,
            finished_at: new Date(),
          }
        : { status: 'FAILED', failure_reason: outcome.failureReason, finished_at: new Date() },
    )
    .where('id', '=', id)
    .where('status', '=', 'RUNNING')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
