import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { HealProposalStatus, HealProposalsTable } from '../schema.js';

export type HealProposalRow = Selectable<HealProposalsTable>;

/**
 * Stores a proposal for steps `version`: a later run healing the same steps replaces a pending one with its
 * fresher pick, but never revives one a person already decided on (false then).
 */
export async function upsertPendingProposal(
  db: DB,
  input: {
    projectId: string;
    testCaseId: string;
    basedOnVersion: number;
    version: number;
    steps: unknown;
    healed: unknown;
  },
): Promise<boolean> {
  const stored = await db
    .insertInto('heal_proposals')
    .values({
      id: randomUUID(),
      project_id: input.projectId,
      test_case_id: input.testCaseId,
      based_on_version: input.basedOnVersion,
      version: input.version,
      steps: JSON.stringify(input.steps),
      healed: JSON.stringify(input.healed),
      created_at: new Date(),
    })
    .onConflict((oc) =>
      oc
        .columns(['test_case_id', 'version'])
        .doUpdateSet((eb) => ({
          steps: eb.ref('excluded.steps'),
          healed: eb.ref('excluded.healed'),
          created_at: eb.ref('excluded.created_at'),
        }))
        .where('heal_proposals.status', '=', 'PENDING'),
    )
    .returning('id')
    .executeTakeFirst();
  return stored !== undefined;
}

/** The newest 50 proposals of a test case (pending ones only, when asked). */
export async function selectProposals(
  db: DB,
  projectId: string,
  testCaseId: string,
  opts: { pendingOnly?: boolean },
): Promise<HealProposalRow[]> {
  let query = db
    .selectFrom('heal_proposals')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('test_case_id', '=', testCaseId);
  if (opts.pendingOnly) query = query.where('status', '=', 'PENDING');
  return query.orderBy('version', 'desc').limit(50).execute();
}

/** Whether the project has the test case. */
export async function testCaseExists(db: DB, projectId: string, testCaseId: string): Promise<boolean> {
  const found = await db
    .selectFrom('test_cases')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', '=', testCaseId)
    .executeTakeFirst();
  return found !== undefined;
}

/** One proposal, locked for the deciding transaction. */
export async function lockProposal(
  db: DB,
  projectId: string,
  testCaseId: string,
  version: number,
): Promise<HealProposalRow | undefined> {
  return db
    .selectFrom('heal_proposals')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('test_case_id', '=', testCaseId)
    .where('version', '=', version)
    .forUpdate()
    .executeTakeFirst();
}

/** Writes the proposal's steps as the test case's version `version`, only if its steps are still `basedOnVersion`. */
export async function applyProposalSteps(
  db: DB,
  testCaseId: string,
  proposal: { steps: unknown; version: number; basedOnVersion: number },
): Promise<boolean> {
  const updated = await db
    .updateTable('test_cases')
    .set({ steps: JSON.stringify(proposal.steps), steps_version: proposal.version, updated_at: new Date() })
    .where('id', '=', testCaseId)
    .where('steps_version', '=', proposal.basedOnVersion)
    .returning('steps_version')
    .executeTakeFirst();
  return updated !== undefined;
}

export async function setProposalStatus(
  db: DB,
  testCaseId: string,
  version: number,
  status: HealProposalStatus,
  decidedAt: Date,
): Promise<void> {
  await db
    .updateTable('heal_proposals')
    .set({ status, decided_at: decidedAt })
    .where('test_case_id', '=', testCaseId)
    .where('version', '=', version)
    .execute();
}

/** Pending proposals based on steps older than `currentVersion` can never apply: superseded. */
export async function supersedeOlderProposals(db: DB, testCaseId: string, currentVersion: number): Promise<void> {
  await db
    .updateTable('heal_proposals')
    .set({ status: 'SUPERSEDED', decided_at: new Date() })
    .where('test_case_id', '=', testCaseId)
    .where('status', '=', 'PENDING')
    .where('based_on_version', '<', currentVersion)
    .where('version', '!=', currentVersion)
    .execute();
}
