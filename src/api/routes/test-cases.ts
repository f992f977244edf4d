import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted } from '../schemas/common.js';
import {
  resumeFromField,
  waitForField,
  CreateTestCase,
  UpdateTestCase,
  TestCaseDetailSchema,
  CreatedTestCase,
  ListQuery,
  TestCaseList,
  Params,
} from '../schemas/test-cases.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import {
  deleteTestCase,
  findConfigIds,
  findDependents,
  findTestCaseRecords,
  getTestCase,
  getTestCaseRecord,
  insertTestCase,
  listTestCases,
  lockProjectTestCases,
  markGenerationFailed,
  projectDependencyGraph,
  updateTestCase,
  type TestCaseRecord,
} from '../../db/queries/test-cases.js';
import { findIdByShortId } from '../../db/queries/lookups.js';
import { findCycle } from '../../domain/dag.js';
import { newId } from '../../ids.js';
import { startBurnIn } from '../../temporal/lifecycle.js';
import type { DB } from '../../db/database.js';

const tags = ['Test cases'];
const base = '/v1/test-cases';

const referenceNotes =
  'References must belong to the project, else 404: `Application not found`, `Scenario not found`, `Config not found: <cfg_…>`, ' +
  '`Test case not found: <id>`. Dependency rules (400): a test case cannot depend on itself, directly or through other test cases ' +
  '(the message names the cycle; both kinds of dependency count), and its resume-from dependency must be a test case of the same ' +
  'application, because browser state only carries over within one application. A rejected request writes nothing.';

const routes = {
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create a test case; its steps are then generated automatically',
    description:
      'The test case is created disabled with `generationStatus` GENERATING, and a burn-in starts that executes the goal against the ' +
      'application and records the steps. It must be enabled (after generation COMPLETED) before test plans run it. ' +
      `${referenceNotes} If the burn-in cannot be started (the workflow service is unavailable), the test case is kept with ` +
      '`generationStatus` FAILED and `failureReason` "could not start generation: …", and the answer is a 503.',
    request: { body: jsonBody(CreateTestCase) },
    responses: {
      200: json(CreatedTestCase, 'Created; generation has started'),
      503: json(ErrorSchema, 'Saved, but generation could not be started; the test case is marked FAILED'),
      ...errorResponses,
    },
  }),
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: 'List test cases, newest first',
    request: { query: ListQuery },
    responses: { 200: json(TestCaseList, 'One page of matching test cases'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Get a test case with its dependencies and recorded steps',
    request: { params: Params },
    responses: { 200: json(TestCaseDetailSchema, 'The test case'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Enable or disable a test case, rename it, change its goal, labels or dependencies',
    description:
      'Enabling a test case whose generation has not COMPLETED is a 409: it has no steps to run. Changing `goal` or `expectedResult` ' +
      `does not regenerate the steps. ${referenceNotes}`,
    request: { params: Params, body: jsonBody(UpdateTestCase) },
    responses: { 200: json(TestCaseDetailSchema, 'Updated'), 409: json(ErrorSchema, 'Enabling before the steps are recorded'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Delete a test case',
    description:
      'Refused (409) while other test cases depend on it; the message lists them. Test plans that listed it no longer do. ' +
      'A burn-in still running for it is not cancelled: it finds the test case gone and stops.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), 409: json(ErrorSchema, 'Other test cases depend on it'), ...errorResponses },
  }),
};

/** The test case of the caller's project, or a 404 (also when it belongs to another project). */
export async function requireTestCase(db: DB, projectId: string, testCaseId: string): Promise<TestCaseRecord> {
  const record = await getTestCaseRecord(db, projectId, testCaseId.toLowerCase());
  if (!record) throw notFound('Test case');
  return record;
}

const described = (record: { id: string; name: string }) => `${record.name} (${record.id})`;

interface Dependencies {
  resumeFrom: string | null;
  waitFor: string[];
}

/**
 * Checks the dependencies a request sets (`changed`: only the fields it names) for the test case `self`,
 * whose dependencies end up as `next`. Cycles are looked for only for an existing test case: nothing can
 * depend on a new one yet.
 */
async function checkDependencies(
  trx: DB,
  projectId: string,
  self: { id: string; applicationId: string; isNew: boolean },
  changed: Partial<Dependencies>,
  next: Dependencies,
): Promise<void> {
  if (changed.resumeFrom === self.id) throw badRequest(`${resumeFromField}: a test case cannot depend on itself`);
  if (changed.waitFor?.includes(self.id)) throw badRequest(`${waitForField}: a test case cannot depend on itself`);

  const ids = [...(changed.resumeFrom ? [changed.resumeFrom] : []), ...(changed.waitFor ?? [])];
  const found = new Map((await findTestCaseRecords(trx, projectId, ids)).map((record) => [record.id, record]));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw new ApiError(404, `Test case not found: ${missing}`);

  if (changed.resumeFrom) {
    const dependency = found.get(changed.resumeFrom)!;
    if (dependency.applicationId !== self.applicationId) {
      throw badRequest(
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
    throw badRequest(`Dependency cycle: ${path} (→ reads "depends on"); a test case cannot depend on itself through other test cases`);
  }
}

/** Empty optional text is stored as none. */
const orNull = (text: string | null | undefined) => (text ? text : null);

export function registerTestCases(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const { db, temporal, config } = c.get('deps');
    const { projectId } = c.get('caller');
    const body = c.req.valid('json');
    const id = newId();

    await db.transaction().execute(async (trx) => {
      await lockProjectTestCases(trx, projectId);
      const applicationId = await findIdByShortId(trx, 'applications', projectId, body.applicationShortId);
      if (!applicationId) throw notFound('Application');
      let scenarioId: string | null = null;
      if (body.scenarioShortId !== undefined) {
        scenarioId = (await findIdByShortId(trx, 'scenarios', projectId, body.scenarioShortId)) ?? null;
        if (!scenarioId) throw notFound('Scenario');
      }
      const configShortIds = body.configShortIds ?? [];
      const configIds = await findConfigIds(trx, projectId, configShortIds);
      const missingConfig = configShortIds.find((shortId) => !configIds.has(shortId));
      if (missingConfig) throw new ApiError(404, `Config not found: ${missingConfig}`);

      const dependencies: Dependencies = {
        resumeFrom: body[resumeFromField]?.toLowerCase() ?? null,
        waitFor: (body[waitForField] ?? []).map((dep) => dep.toLowerCase()),
      };
      await checkDependencies(trx, projectId, { id, applicationId, isNew: true }, dependencies, dependencies);

      await insertTestCase(trx, {
        id,
        projectId,
        applicationId,
        name: body.name,
        goal: body.goal,
        expectedResult: orNull(body.expectedResult),
        labels: body.labels ?? [],
        configIds: configShortIds.map((shortId) => configIds.get(shortId)!),
        scenarioId,
        resumeFromTestCaseId: dependencies.resumeFrom,
        waitForTestCaseIds: dependencies.waitFor,
      });
    });

    // Started only once the row is committed: the burn-in reads it. A failure here must not lose the request.
    try {
      await startBurnIn(temporal, { projectId, testCaseId: id }, `Burn-in: ${body.name}`);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      c.get('logger').error('could not start burn-in', { testCaseId: id, err });
      await markGenerationFailed(db, id, `could not start generation: ${reason}`);
      throw new ApiError(503, `Test case ${id} was saved, but its generation could not start (${reason}); it is marked FAILED`);
    }

    return c.json({ success: true, testCase: { id, name: body.name, url: `${config.appUrl}/test-cases/${id}` } }, 200);
  });

  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const query = c.req.valid('query');
    let applicationId: string | undefined;
    if (query.applicationShortId !== undefined) {
      applicationId = await findIdByShortId(db, 'applications', projectId, query.applicationShortId);
      if (!applicationId) throw notFound('Application');
    }
    const labelFilter = query.labels
      ?.split(',')
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    const page = { limit: query.limit, offset: query.offset };
    const { testCases, total } = await listTestCases(
      db,
      projectId,
      { applicationId, labels: labelFilter, isEnabled: query.isEnabled === undefined ? undefined : query.isEnabled === 'true' },
      page,
    );
    return c.json({ testCases, total, ...page }, 200);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const view = await getTestCase(db, c.get('caller').projectId, c.req.valid('param').testCaseId.toLowerCase());
    if (!view) throw notFound('Test case');
    return c.json(view, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const testCaseId = c.req.valid('param').testCaseId.toLowerCase();
    const body = c.req.valid('json');

    const view = await db.transaction().execute(async (trx) => {
      await lockProjectTestCases(trx, projectId);
      const record = await requireTestCase(trx, projectId, testCaseId);
      if (body.isEnabled === true && record.generationStatus !== 'COMPLETED') {
        // The request is well formed; the test case's state refuses it (as the export does while there are no steps).
        throw new ApiError(409, `isEnabled: test case has no recorded steps yet (generation ${record.generationStatus}), so it could not run`);
      }

      const changed: Partial<Dependencies> = {
        ...(body[resumeFromField] !== undefined && { resumeFrom: body[resumeFromField]?.toLowerCase() ?? null }),
        ...(body[waitForField] !== undefined && { waitFor: body[waitForField].map((dep) => dep.toLowerCase()) }),
      };
      if (changed.resumeFrom !== undefined || changed.waitFor !== undefined) {
        const current = (await getTestCase(trx, projectId, testCaseId))!;
        const next: Dependencies = {
          resumeFrom: changed.resumeFrom !== undefined ? changed.resumeFrom : current[resumeFromField],
          waitFor: changed.waitFor ?? current[waitForField],
        };
        await checkDependencies(trx, projectId, { id: testCaseId, applicationId: record.applicationId, isNew: false }, changed, next);
      }

      await updateTestCase(trx, testCaseId, {
        name: body.name,
        goal: body.goal,
        expectedResult: body.expectedResult === undefined ? undefined : orNull(body.expectedResult),
        isEnabled: body.isEnabled,
        labels: body.labels,
        resumeFromTestCaseId: changed.resumeFrom,
        waitForTestCaseIds: changed.waitFor,
      });
      return (await getTestCase(trx, projectId, testCaseId))!;
    });
    return c.json(view, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const testCaseId = c.req.valid('param').testCaseId.toLowerCase();

    await db.transaction().execute(async (trx) => {
      await lockProjectTestCases(trx, projectId);
      const record = await requireTestCase(trx, projectId, testCaseId);
      const dependents = await findDependents(trx, projectId, record.id);
      if (dependents.length > 0) {
        const shown = dependents.slice(0, 10).map(described).join(', ');
        const more = dependents.length > 10 ? ` and ${dependents.length - 10} more` : '';
        throw new ApiError(409, `Test case ${described(record)} is a dependency of ${shown}${more}; remove it from their dependencies first`);
      }
      await deleteTestCase(trx, record.id);
    });
    return c.json({ deleted: true as const }, 200);
  });
}
