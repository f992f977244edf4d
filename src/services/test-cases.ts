// Test cases as business operations: create (and start its burn-in), change, delete, with the dependency rules.
// Used by the API and (next) the chat assistant's tools; input field names are the API's, so messages name them.
import type { DB } from '../db/database.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import {
  deleteTestCase as deleteTestCaseRow,
  findConfigIds,
  findDependents,
  findTestCaseRecords,
  getTestCaseRecord,
  insertTestCase,
  lockProjectTestCases,
  markGenerationFailed,
  projectDependencyGraph,
  updateTestCase as updateTestCaseRow,
  type TestCaseRecord,
} from '../db/queries/test-cases.js';
import { getTestCase, type TestCaseView } from '../db/queries/test-case-views.js';
import { findCycle } from '../domain/dag.js';
import { newId } from '../ids.js';
import { startBurnIn } from '../temporal/lifecycle.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import { resumeFromField, waitForField } from '../schemas/test-cases.js';
import { recordAudit } from './audit-log.js';
import { systemActor, type AuditActor } from '../domain/audit.js';
import { assertLlmBudget } from './llm-usage.js';
import type { ServiceContext } from './context.js';

export interface CreateTestCaseInput {
  projectId: string;
  applicationShortId: string;
  name: string;
  goal: string;
  expectedResult?: string | null;
  labels?: string[];
  configShortIds?: string[];
  scenarioShortId?: string;
  [resumeFromField]?: string | null;
  [waitForField]?: string[];
}

/** A change to a test case; an absent field is left as it is. */
export interface UpdateTestCaseInput {
  projectId: string;
  testCaseId: string;
  name?: string;
  goal?: string;
  expectedResult?: string | null;
  isEnabled?: boolean;
  labels?: string[];
  [resumeFromField]?: string | null;
  [waitForField]?: string[];
  quarantined?: boolean;
  /** Who changes it, for the audit log (a quarantine decision is recorded). */
  actor?: AuditActor;
}

export interface Dependencies {
  resumeFrom: string | null;
  waitFor: string[];
}

/** The test case of the project, or NotFoundError (also when it belongs to another project). */
export async function requireTestCase(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
): Promise<TestCaseRecord> {
  const record = await getTestCaseRecord(db, projectId, testCaseId.toLowerCase());
  if (!record) throw new NotFoundError('Test case');
  return record;
}

const described = (record: { id: string; name: string }) => `${record.name} (${record.id})`;

/** Empty optional text is stored as none. */
const orNull = (text: string | null | undefined) => (text ? text : null);

/**
 * Checks the dependencies a request sets (`changed`: only the fields it names) for the test case `self`,
 * whose dependencies end up as `next`. Cycles are looked for only for an existing test case: nothing can
 * depend on a new one yet.
 */
export async function checkDependencies(
  trx: DB,
  projectId: string,
  self: { id: string; applicationId: string; isNew: boolean },
  changed: Partial<Dependencies>,
  next: Dependencies,
): Promise<void> {
  if (changed.resumeFrom === self.id) throw new InvalidError(`${resumeFromField}: a test case cannot depend on itself`);
  if (changed.waitFor?.includes(self.id))
    throw new InvalidError(`${waitForField}: a test case cannot depend on itself`);

  const ids = [...(changed.resumeFrom ? [changed.resumeFrom] : []), ...(changed.waitFor ?? [])];
  const found = new Map((await findTestCaseRecords(trx, projectId, ids)).map((record) => [record.id, record]));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw new NotFoundError('Test case', missing);

  if (changed.resumeFrom) {
    const dependency = found.get(changed.resumeFrom)!;
    if (dependency.applicationId !== self.applicationId) {
      throw new InvalidError(
        `${resumeFromField}: ${described(dependency)} belongs to another application; a test case can only resume from one of its own application, because browser state does not carry over between applications`,
      );
    }
  }

  if (self.isNew) return;
  const graph = await projectDependencyGraph(trx, projectId);
  const edges = new Map([...graph].map(([id, node]) => [id, node.dependsOn]));
  edges.set(self.id, [...(next.resumeFrom ? [next.resumeFrom] : []), ...next.waitFor]);
  const cycle = findCycle(edges);
  if (cycle) {
    const path = cycle.map((id) => described({ id, name: graph.get(id)?.name ?? '?' })).join(' → ');
    throw new InvalidError(
      `Dependency cycle: ${path} (→ reads "depends on"); a test case cannot depend on itself through other test cases`,
    );
  }
}

/**
 * Creates a test case (disabled, GENERATING) and starts its burn-in. When the burn-in cannot start, the test case
 * is kept as FAILED with the reason and UnavailableError says so: the request is not lost, nor silently stuck.
 */
export async function createTestCase(
  deps: ServiceContext<'temporal' | 'logger'>,
  input: CreateTestCaseInput,
): Promise<{ id: string; name: string }> {
  // A burn-in is LLM work: refused (429) before anything is written once the project's daily budget is spent.
  await assertLlmBudget(deps, input.projectId);
  const { id } = await writeTestCase(deps, input);
  // Started only once the row is committed: the burn-in reads it. A failure here must not lose the request.
  try {
    await startBurnIn(deps.temporal, { projectId: input.projectId, testCaseId: id }, `Burn-in: ${input.name}`, {
      application: input.applicationShortId,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    deps.logger.error('could not start burn-in', { testCaseId: id, err });
    await markGenerationFailed(deps.db, id, `could not start generation: ${reason}`);
    throw new UnavailableError(
      `Test case ${id} was saved, but its generation could not start (${reason}); it is marked FAILED`,
    );
  }
  return { id, name: input.name };
}

/**
 * Validates and writes a new test case (disabled, GENERATING) without starting its burn-in: for a workflow that
 * runs the burn-in as its own child (the chat assistant, a change review). `opts.id` gives the new row a caller's
 * stable id: a retried activity then finds the row instead of writing a second one.
 */
export async function writeTestCase(
  deps: ServiceContext,
  input: CreateTestCaseInput,
  opts: { id?: string } = {},
): Promise<{ id: string; name: string }> {
  const { db } = deps;
  const { projectId } = input;
  const id = opts.id ?? newId();

  return db.transaction().execute(async (trx) => {
    await lockProjectTestCases(trx, projectId);
    // A retried writer (an activity whose first attempt committed) finds what it wrote: under the lock, so two
    // attempts at once cannot both insert.
    const written = opts.id ? await getTestCaseRecord(trx, projectId, id) : undefined;
    if (written) return { id, name: written.name };
    const applicationId = await findIdByShortId(trx, 'applications', projectId, input.applicationShortId);
    if (!applicationId) throw new NotFoundError('Application');
    let scenarioId: string | null = null;
    if (input.scenarioShortId !== undefined) {
      scenarioId = (await findIdByShortId(trx, 'scenarios', projectId, input.scenarioShortId)) ?? null;
      if (!scenarioId) throw new NotFoundError('Scenario');
    }
    const configShortIds = input.configShortIds ?? [];
    const configIds = await findConfigIds(trx, projectId, configShortIds);
    const missingConfig = configShortIds.find((shortId) => !configIds.has(shortId));
    if (missingConfig) throw new NotFoundError('Config', missingConfig);

    const dependencies: Dependencies = {
      resumeFrom: input[resumeFromField]?.toLowerCase() ?? null,
      waitFor: (input[waitForField] ?? []).map((dep) => dep.toLowerCase()),
    };
    await checkDependencies(trx, projectId, { id, applicationId, isNew: true }, dependencies, dependencies);

    await insertTestCase(trx, {
      id,
      projectId,
      applicationId,
      name: input.name,
      goal: input.goal,
      expectedResult: orNull(input.expectedResult),
      labels: input.labels ?? [],
      configIds: configShortIds.map((shortId) => configIds.get(shortId)!),
      scenarioId,
      resumeFromTestCaseId: dependencies.resumeFrom,
      waitForTestCaseIds: dependencies.waitFor,
    });
    return { id, name: input.name };
  });
}

/** Changes a test case; enabling needs recorded steps, new dependencies follow the same rules as on create. */
export async function updateTestCase(deps: ServiceContext, input: UpdateTestCaseInput): Promise<TestCaseView> {
  const { projectId } = input;
  const testCaseId = input.testCaseId.toLowerCase();
  return deps.db.transaction().execute(async (trx) => {
    await lockProjectTestCases(trx, projectId);
    const record = await requireTestCase({ db: trx }, projectId, testCaseId);
    if (input.isEnabled === true && record.generationStatus !== 'COMPLETED') {
      throw new ConflictError(
        `isEnabled: test case has no recorded steps yet (generation ${record.generationStatus}), so it could not run`,
      );
    }

    const changed: Partial<Dependencies> = {
      ...(input[resumeFromField] !== undefined && { resumeFrom: input[resumeFromField]?.toLowerCase() ?? null }),
      ...(input[waitForField] !== undefined && { waitFor: input[waitForField].map((dep) => dep.toLowerCase()) }),
    };
    if (changed.resumeFrom !== undefined || changed.waitFor !== undefined) {
      const current = (await getTestCase(trx, projectId, testCaseId))!;
      const next: Dependencies = {
        resumeFrom: changed.resumeFrom !== undefined ? changed.resumeFrom : current[resumeFromField],
        waitFor: changed.waitFor ?? current[waitForField],
      };
      await checkDependencies(
        trx,
        projectId,
        { id: testCaseId, applicationId: record.applicationId, isNew: false },
        changed,
        next,
      );
    }

    const wasQuarantined =
      input.quarantined === undefined ? undefined : (await getTestCase(trx, projectId, testCaseId))!.quarantined;
    await updateTestCaseRow(trx, testCaseId, {
      name: input.name,
      goal: input.goal,
      expectedResult: input.expectedResult === undefined ? undefined : orNull(input.expectedResult),
      isEnabled: input.isEnabled,
      labels: input.labels,
      resumeFromTestCaseId: changed.resumeFrom,
      waitForTestCaseIds: changed.waitFor,
      quarantined: input.quarantined,
    });
    if (wasQuarantined !== undefined && wasQuarantined !== input.quarantined) {
      const kind = input.quarantined ? 'test_case.quarantined' : 'test_case.released';
      await recordAudit(
        { db: trx },
        {
          projectId,
          kind,
          actor: input.actor ?? systemActor,
          subject: testCaseId,
          details: { name: record.name },
        },
      );
    }
    return (await getTestCase(trx, projectId, testCaseId))!;
  });
}

/** Deletes a test case nothing depends on (ConflictError names the dependents otherwise). */
export async function deleteTestCase(
  deps: ServiceContext,
  input: { projectId: string; testCaseId: string },
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await lockProjectTestCases(trx, input.projectId);
    const record = await requireTestCase({ db: trx }, input.projectId, input.testCaseId);
    const dependents = await findDependents(trx, input.projectId, record.id);
    if (dependents.length > 0) {
      const shown = dependents.slice(0, 10).map(described).join(', ');
      const more = dependents.length > 10 ? ` and ${dependents.length - 10} more` : '';
      throw new ConflictError(
        `Test case ${described(record)} is a dependency of ${shown}${more}; remove it from their dependencies first`,
      );
    }
    await deleteTestCaseRow(trx, record.id);
  });
}
