import { requestTestCaseSync } from './git-sync-requests.js';
import type { DB } from '../db/database.js';
import type { HealProposalStatus } from '../db/schema.js';
import { saveHealedSteps } from '../db/queries/execution.js';
import {
  applyProposalSteps,
  lockProposal,
  selectProposals,
  setProposalStatus,
  supersedeOlderProposals,
  testCaseExists,
  upsertPendingProposal,
} from '../db/queries/heal-proposals.js';
import { findHealPolicy, updateProject } from '../db/queries/projects.js';
import type { HealPolicy, Step } from '../domain/steps.js';
import { systemActor, type AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import type { ServiceContext } from './context.js';

/** The parts of a run's healing a proposal keeps (the replay's HealedStep). */
export interface HealRecord {
  index: number;
  from?: string | null;
  to: string;
  via: string;
  reason?: string;
}

export interface HealProposal {
  testCaseId: string;
  basedOnVersion: number;
  /** The steps version accepting it creates; the `{version}` of the accept and reject routes. */
  version: number;
  status: HealProposalStatus;
  steps: Step[];
  healed: HealRecord[];
  createdAt: Date;
  decidedAt: Date | null;
}

export class HealProposalError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'HealProposalError';
  }
}

export async function getHealPolicy({ db }: ServiceContext, projectId: string): Promise<HealPolicy> {
  return (await findHealPolicy(db, projectId)) ?? 'review';
}

export async function setHealPolicy(
  { db }: ServiceContext,
  projectId: string,
  policy: HealPolicy,
): Promise<HealPolicy> {
  await updateProject(db, projectId, { heal_policy: policy });
  return policy;
}

export type KeptHeal = { kept: 'saved' | 'proposed'; version: number } | { kept: 'nothing'; reason: string };

/**
 * After a PASSED run that needed other locators: `auto` saves the steps as the next version; `review` keeps
 * them as a proposal a person accepts. Under `review` a run that only used recorded fallbacks proposes nothing:
 * the person already has those locators and a proposal would only reorder them.
 */
export async function keepHealedSteps(
  { db }: ServiceContext,
  input: { projectId: string; testCaseId: string; basedOnVersion: number; steps: Step[]; healed: HealRecord[] },
): Promise<KeptHeal> {
  if (input.healed.length === 0) return { kept: 'nothing', reason: 'nothing healed' };
  // A new expectation (an assertion's text, a control's label) changes what the test checks: only a person may.
  const changesExpectation = input.healed.some((h) => h.via === 'expectation' || h.via === 'baseline');
  const policy = changesExpectation ? 'review' : await getHealPolicy({ db }, input.projectId);
  if (policy === 'auto') {
    const version = await saveHealedSteps(db, input.testCaseId, input.basedOnVersion, input.steps);
    if (version === undefined) return { kept: 'nothing', reason: 'the steps changed since this run read them' };
    await supersedeOlderProposals(db, input.testCaseId, version);
    return { kept: 'saved', version };
  }
  if (!input.healed.some((h) => h.via === 'llm' || h.via === 'expectation' || h.via === 'baseline'))
    return { kept: 'nothing', reason: 'only recorded fallbacks were used' };
  const version = input.basedOnVersion + 1;
  // One proposal per version: a later run healing the same steps replaces a pending one with its fresher pick,
  // but never revives one a person already decided on.
  const stored = await upsertPendingProposal(db, {
    projectId: input.projectId,
    testCaseId: input.testCaseId,
    basedOnVersion: input.basedOnVersion,
    version,
    steps: input.steps,
    healed: input.healed,
  });
  if (!stored) return { kept: 'nothing', reason: `the heal proposal for steps version ${version} was already decided` };
  return { kept: 'proposed', version };
}

export async function listHealProposals(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
  opts: { pendingOnly?: boolean } = {},
): Promise<HealProposal[]> {
  await requireTestCase(db, projectId, testCaseId);
  return (await selectProposals(db, projectId, testCaseId, opts)).map(toProposal);
}

/** Applies a pending proposal as the test case's next steps version; 409 when the steps moved on meanwhile. */
export async function acceptHealProposal(
  deps: ServiceContext,
  projectId: string,
  testCaseId: string,
  version: number,
  actor: AuditActor = systemActor,
): Promise<HealProposal> {
  const accepted = await deps.db.transaction().execute(async (trx) => {
    const proposal = await pendingProposal(trx, projectId, testCaseId, version);
    const updated = await applyProposalSteps(trx, testCaseId, proposal);
    if (!updated) {
      await decide(trx, testCaseId, version, 'SUPERSEDED');
      throw new HealProposalError(
        'conflict',
        `the steps changed since this proposal was made (it was based on version ${proposal.basedOnVersion})`,
      );
    }
    await supersedeOlderProposals(trx, testCaseId, version);
    await recordAudit(
      { db: trx },
      {
        projectId,
        kind: 'heal_proposal.accepted',
        actor,
        subject: testCaseId,
        details: { version },
      },
    );
    return { ...proposal, ...(await decide(trx, testCaseId, version, 'ACCEPTED')) };
  });
  // An accepted heal or expectation is a change on Proctor's side: proposed to the repository when synced.
  await requestTestCaseSync(deps, testCaseId);
  return accepted;
}

export async function rejectHealProposal(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
  version: number,
  actor: AuditActor = systemActor,
): Promise<HealProposal> {
  return db.transaction().execute(async (trx) => {
    const proposal = await pendingProposal(trx, projectId, testCaseId, version);
    await recordAudit(
      { db: trx },
      {
        projectId,
        kind: 'heal_proposal.rejected',
        actor,
        subject: testCaseId,
        details: { version },
      },
    );
    return { ...proposal, ...(await decide(trx, testCaseId, version, 'REJECTED')) };
  });
}

async function requireTestCase(db: DB, projectId: string, testCaseId: string): Promise<void> {
  if (!(await testCaseExists(db, projectId, testCaseId)))
    throw new HealProposalError('not_found', 'Test case not found');
}

async function pendingProposal(db: DB, projectId: string, testCaseId: string, version: number): Promise<HealProposal> {
  await requireTestCase(db, projectId, testCaseId);
  const row = await lockProposal(db, projectId, testCaseId, version);
  if (!row) throw new HealProposalError('not_found', `No heal proposal for steps version ${version}`);
  if (row.status !== 'PENDING')
    throw new HealProposalError(
      'conflict',
      `The heal proposal for version ${version} is already ${row.status.toLowerCase()}`,
    );
  return toProposal(row);
}

async function decide(
  db: DB,
  testCaseId: string,
  version: number,
  status: HealProposalStatus,
): Promise<{ status: HealProposalStatus; decidedAt: Date }> {
  const decidedAt = new Date();
  await setProposalStatus(db, testCaseId, version, status, decidedAt);
  return { status, decidedAt };
}

function toProposal(row: {
  test_case_id: string;
  based_on_version: number;
  version: number;
  status: HealProposalStatus;
  steps: unknown;
  healed: unknown;
  created_at: Date;
  decided_at: Date | null;
}): HealProposal {
  return {
    testCaseId: row.test_case_id,
    basedOnVersion: row.based_on_version,
    version: row.version,
    status: row.status,
    steps: row.steps as Step[],
    healed: row.healed as HealRecord[],
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

/** A proposal in its API shape (HealProposalSchema in src/schemas/heal-proposals.ts), as REST and MCP answer it. */
export function healProposalView(p: HealProposal) {
  return {
    ...p,
    healed: p.healed.map((h) => ({
      ...h,
      via: ['llm', 'expectation', 'baseline'].includes(h.via)
        ? (h.via as 'llm' | 'expectation' | 'baseline')
        : ('fallback' as const),
    })),
    createdAt: p.createdAt.toISOString(),
    decidedAt: p.decidedAt?.toISOString() ?? null,
  };
}
