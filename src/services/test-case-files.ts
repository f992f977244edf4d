// A test case as a file (src/schemas/test-case-file.ts): export it, and import one back, creating the test case
// (a file without `id`) or making the existing one what the file says. An import is all or nothing: every field is
// checked, the references too, before one transaction writes; a refusal names the line and column. Importing the
// file an export gave changes nothing (no new steps version), so export → import → export is the same bytes.
import type { DB } from '../db/database.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import { findConfigIds, insertTestCase, lockProjectTestCases, updateTestCase } from '../db/queries/test-cases.js';
import { getTestCase, type TestCaseView } from '../db/queries/test-case-views.js';
import { saveHealedSteps } from '../db/queries/execution.js';
import { supersedeOlderProposals } from '../db/queries/heal-proposals.js';
import { secretConfigValues, setConfigsAndScenario, setImportedSteps } from '../db/queries/test-case-files.js';
import { ConflictError, DomainError, NotFoundError } from '../domain/errors.js';
import type { AuditActor } from '../domain/audit.js';
import type { Step } from '../domain/steps.js';
import { newId } from '../ids.js';
import { StepSchema } from '../schemas/steps.js';
import type { TestCaseFile } from '../schemas/test-case-file.js';
import { recordAudit } from './audit-log.js';
import type { ServiceContext } from './context.js';
import { checkDependencies, type Dependencies } from './test-cases.js';
import { withBaselineName } from './step-edits.js';
import { resumeFromField, waitForField } from '../schemas/test-cases.js';
import {
  readTestCaseFile,
  schemaUrlOf,
  TestCaseFileError,
  writeTestCaseFile,
  type FilePath,
} from './test-case-file-text.js';
import { secretsIn, withoutSecrets, type Secret } from './test-case-file-secrets.js';

/** The file of a test case with recorded steps (ConflictError before burn-in has recorded them). */
export async function exportTestCaseFile(
  { db, publicUrl }: ServiceContext,
  input: { projectId: string; testCaseId: string },
): Promise<{ fileName: string; file: string }> {
  const view = await getTestCase(db, input.projectId, input.testCaseId.toLowerCase());
  if (!view) throw new NotFoundError('Test case');
  if (!view.steps?.steps.length)
    throw new ConflictError(`test case has no recorded steps yet (generation status ${view.generationStatus})`);
  const secrets = await secretConfigValues(db, input.projectId, await configIdsOf(db, input.projectId, view));
  const file = withoutSecrets(fileOf(view, view.steps.steps), secrets);
  const slug = view.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return { fileName: `${slug || 'test'}.proctor.yaml`, file: writeTestCaseFile(file, schemaUrlOf(publicUrl)) };
}

async function configIdsOf(db: DB, projectId: string, view: TestCaseView): Promise<string[]> {
  return [...(await findConfigIds(db, projectId, view.configShortIds)).values()];
}

/** A stored test case as its file says it; empty lists and absent texts are left out. */
function fileOf(view: TestCaseView, steps: Step[]): TestCaseFile {
  const resumeFrom = view.resumeFromDependencyProjectTestCaseId;
  const waitFor = view.waitForDependenciesProjectTestCaseIds;
  return {
    format: 1,
    id: view.id,
    name: view.name,
    application: view.applicationShortId,
    goal: view.goal ?? view.name,
    ...(view.expectedResult !== null && { expectedResult: view.expectedResult }),
    ...(view.labels.length > 0 && { labels: view.labels }),
    ...(view.configShortIds.length > 0 && { configs: view.configShortIds }),
    ...(view.scenarioShortId !== null && { scenario: view.scenarioShortId }),
    ...((resumeFrom !== null || waitFor.length > 0) && {
      dependencies: {
        ...(resumeFrom !== null && { resumeFrom }),
        ...(waitFor.length > 0 && { waitFor }),
      },
    }),
    steps: steps.map((step) => StepSchema.parse(step) as Step),
  };
}

export interface ImportResult {
  id: string;
  created: boolean;
  changed: string[];
  stepsVersion: number;
}

// The dependency rules are the API's (test-cases.ts); their messages name the API's fields, the file has its own.
const apiDependencyField = new RegExp(`^(${resumeFromField}|${waitForField}): `);

/** Where in the file a dependency refusal points: the id it names, else the field its message names. */
function dependencyPath(message: string, deps: Dependencies): FilePath {
  const waiting = deps.waitFor.findIndex((id) => message.includes(id));
  if (deps.resumeFrom && message.endsWith(deps.resumeFrom)) return ['dependencies', 'resumeFrom'];
  if (waiting >= 0 && !message.startsWith('Dependency cycle')) return ['dependencies', 'waitFor', waiting];
  if (message.startsWith(resumeFromField)) return ['dependencies', 'resumeFrom'];
  if (message.startsWith(waitForField)) return ['dependencies', 'waitFor'];
  return ['dependencies'];
}

/** A refusal of what the file names, placed where it names it; the same kind (404, 400, 409) as the API's own. */
function placed(err: unknown, where: string): unknown {
  if (err instanceof DomainError) err.message = `${where}: ${err.message}`;
  return err;
}

/** Imports a file (see the file's header); TestCaseFileError and the domain errors say what is wrong and where. */
export async function importTestCaseFile(
  { db }: ServiceContext,
  input: { projectId: string; text: string; actor?: AuditActor },
): Promise<ImportResult> {
  const { file, at } = readTestCaseFile(input.text);
  const { projectId } = input;
  const refuse = (path: FilePath, err: DomainError) => placed(err, `${at(path)}: ${path.join('.')}`);
  return db.transaction().execute(async (trx) => {
    await lockProjectTestCases(trx, projectId);
    const applicationId = await findIdByShortId(trx, 'applications', projectId, file.application);
    if (!applicationId) throw refuse(['application'], new NotFoundError('Application', file.application));
    const scenarioId = file.scenario ? await findIdByShortId(trx, 'scenarios', projectId, file.scenario) : null;
    if (scenarioId === undefined) throw refuse(['scenario'], new NotFoundError('Scenario', file.scenario));
    const configShortIds = file.configs ?? [];
    const configIds = await findConfigIds(trx, projectId, configShortIds);
    const missing = configShortIds.findIndex((shortId) => !configIds.has(shortId));
    if (missing >= 0) throw refuse(['configs', missing], new NotFoundError('Config', configShortIds[missing]));
    const orderedConfigIds = configShortIds.map((shortId) => configIds.get(shortId)!);
    checkNoSecrets(file, await secretConfigValues(trx, projectId, orderedConfigIds), at);

    const existing = file.id ? await getTestCase(trx, projectId, file.id.toLowerCase()) : undefined;
    if (file.id && !existing) throw refuse(['id'], new NotFoundError('Test case', file.id));
    if (existing && existing.applicationShortId !== file.application)
      throw new TestCaseFileError(
        `${at(['application'])}: application: the test case belongs to ${existing.applicationShortId}; a test case cannot move to another application (import it without \`id\` to make a new one)`,
      );
    if (existing && !existing.steps)
      throw new ConflictError(
        `${at(['id'])}: id: the test case has no recorded steps yet (generation ${existing.generationStatus}): let its burn-in finish first`,
      );
    const id = existing?.id ?? newId();
    const dependencies: Dependencies = {
      resumeFrom: file.dependencies?.resumeFrom?.toLowerCase() ?? null,
      waitFor: (file.dependencies?.waitFor ?? []).map((dep) => dep.toLowerCase()),
    };
    try {
      await checkDependencies(trx, projectId, { id, applicationId, isNew: !existing }, dependencies, dependencies);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const path = dependencyPath(err.message, dependencies);
      err.message = `${at(path)}: ${path.join('.')}: ${err.message.replace(apiDependencyField, '')}`;
      throw err;
    }
    const row = {
      name: file.name,
      goal: file.goal,
      expectedResult: file.expectedResult ? file.expectedResult : null,
      labels: file.labels ?? [],
      resumeFromTestCaseId: dependencies.resumeFrom,
      waitForTestCaseIds: dependencies.waitFor,
    };
    if (!existing) {
      await insertTestCase(trx, { id, projectId, applicationId, ...row, configIds: orderedConfigIds, scenarioId });
      await setImportedSteps(trx, id, file.steps.map(withBaselineName));
      return { id, created: true, changed: [], stepsVersion: 1 };
    }
    const before = fileOf(existing, existing.steps!.steps);
    const after: TestCaseFile = { ...file, id: existing.id };
    const changed = (Object.keys(after) as (keyof TestCaseFile)[])
      .concat((Object.keys(before) as (keyof TestCaseFile)[]).filter((k) => !(k in after)))
      .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    const fields = changed.filter((key) => key !== 'steps');
    if (fields.length > 0) {
      await updateTestCase(trx, id, row);
      await setConfigsAndScenario(trx, id, orderedConfigIds, scenarioId);
    }
    let stepsVersion = existing.steps!.version;
    if (changed.includes('steps')) {
      // A visual check written in the file without a baseline name gets one, as one added in the editor does.
      const saved = await saveHealedSteps(trx, id, stepsVersion, file.steps.map(withBaselineName));
      if (saved === undefined)
        throw new ConflictError('the steps changed while the file was imported: import it again');
      await supersedeOlderProposals(trx, id, saved);
      if (input.actor)
        await recordAudit(
          { db: trx },
          {
            projectId,
            kind: 'test_case.steps_edited',
            actor: input.actor,
            subject: id,
            details: { version: saved, basedOnVersion: stepsVersion, steps: file.steps.length, source: 'file' },
          },
        );
      stepsVersion = saved;
    }
    return { id, created: false, changed, stepsVersion };
  });
}

function checkNoSecrets(file: TestCaseFile, secrets: Secret[], at: (path: FilePath) => string): void {
  const found = secretsIn(file, secrets);
  if (found.length === 0) return;
  throw new TestCaseFileError(
    found
      .slice(0, 5)
      .map(
        ({ path, name }) =>
          `${at(path)}: ${path.join('.')}: holds the value of the secret config ${name}: write {{${name}}} instead`,
      )
      .join('; '),
  );
}
