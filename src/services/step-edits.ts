// A person's corrections to recorded steps (the dashboard's step editor): a new steps version with the same
// versioning as a heal (written only if the steps are still the version the person edited, older proposals
// superseded), checked field by field before anything is written.
import { requestTestCaseSync } from './git-sync-requests.js';
import type { DB } from '../db/database.js';
import { saveHealedSteps } from '../db/queries/execution.js';
import { supersedeOlderProposals } from '../db/queries/heal-proposals.js';
import { getTestCase } from '../db/queries/test-case-views.js';
import { stepFailureScreenshots } from '../db/queries/dashboard-step-editor.js';
import { actionsWithElement } from '../browser/steps/actions.js';
import { LocatorSyntaxError, parseLocator } from '../domain/locators.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { actionsNeedingValue, StepEditError, type StepEditField, type StepEditProblem } from '../domain/step-edits.js';
import type { EditedStep, Step } from '../domain/steps.js';
import { newBaselineName } from '../ids.js';
import { StepSchema } from '../schemas/steps.js';
import type { AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import type { ServiceContext } from './context.js';

/** Every rule an edited list breaks, by step and field; empty when it may be saved. */
export function stepEditProblems(steps: EditedStep[]): StepEditProblem[] {
  const problems: StepEditProblem[] = [];
  if (steps.length === 0)
    problems.push({
      index: -1,
      field: 'steps',
      message: 'a test needs at least one step: delete the test case instead',
    });
  steps.forEach((step, index) => {
    const add = (field: StepEditField, message: string) => problems.push({ index, field, message });
    const parsed = StepSchema.safeParse(step);
    if (!parsed.success) for (const issue of parsed.error.issues) add(fieldOf(issue.path), issue.message);
    if (!step.description.trim()) add('description', 'say in words what the step does: self-healing looks for it');
    if (actionsWithElement.has(step.action) && !step.locator)
      add('locator', `this ${step.action} step needs a locator`);
    if (actionsNeedingValue.has(step.action) && !step.value) add('value', `this ${step.action} step needs a value`);
    if (step.locator) checkLocator(step.locator, (m) => add('locator', m));
    for (const fallback of step.fallbacks ?? []) checkLocator(fallback, (m) => add('fallbacks', m));
    for (const mask of step.visual?.masks ?? []) checkLocator(mask, (m) => add('steps', `a mask is ${m}`));
    if (step.visual && step.action !== 'assert_screenshot') add('steps', `a ${step.action} step has no visual check`);
    if (
      step.action === 'assert_visible' &&
      step.target &&
      !(step.target.name ?? step.target.text ?? '').trim() &&
      (step.target.name !== undefined || step.target.text !== undefined)
    ) {
      add('expected', 'an assertion needs the text it expects');
    }
  });
  return problems;
}

// A locator is stored as Playwright source and parsed (never evaluated) at replay: one replay cannot parse is refused now.
function checkLocator(expression: string, report: (message: string) => void): void {
  try {
    parseLocator(expression);
  } catch (err) {
    if (!(err instanceof LocatorSyntaxError)) throw err;
    report(`not a locator Proctor can replay: ${err.message}`);
  }
}

function fieldOf(path: readonly PropertyKey[]): StepEditField {
  const first = path[0];
  if (first === 'locator' || first === 'fallbacks' || first === 'value' || first === 'description') return first;
  return first === 'target' ? 'expected' : 'steps';
}

/** A visual check added in the editor gets its baselines' name; its first replay records them. */
export function withBaselineName(step: EditedStep): Step {
  if (step.action !== 'assert_screenshot' && !step.visual) return step as Step;
  return { ...step, visual: { ...step.visual, baseline: step.visual?.baseline ?? newBaselineName() } };
}

/**
 * Saves `steps` as the next version of the test case's steps, if they are still `basedOnVersion` (else a
 * ConflictError: someone, or a heal, changed them since the page was loaded). Pending heal proposals of older
 * versions can no longer apply and are superseded, as when a proposal is accepted.
 */
export async function saveEditedSteps(
  deps: ServiceContext,
  input: {
    projectId: string;
    testCaseId: string;
    basedOnVersion: number;
    steps: EditedStep[];
    actor?: AuditActor;
    /** More facts for the audit entry (an insertion says where and what it recorded). */
    auditDetails?: Record<string, unknown>;
    /** Written in the same transaction as the version (an insertion request marks itself done: both or neither). */
    onSaved?: (trx: DB, version: number) => Promise<void>;
  },
): Promise<{ version: number }> {
  const { db } = deps;
  const current = await getTestCase(db, input.projectId, input.testCaseId);
  if (!current) throw new NotFoundError('Test case');
  if (!current.steps) throw new ConflictError('the test case has no recorded steps yet: let the burn-in finish first');
  const steps = input.steps.map(withBaselineName);
  const problems = stepEditProblems(steps);
  if (problems.length > 0) throw new StepEditError(problems);
  const saved = await db.transaction().execute(async (trx) => {
    const version = await saveHealedSteps(trx, input.testCaseId, input.basedOnVersion, steps);
    if (version === undefined)
      throw new ConflictError(
        `the steps changed since you opened them (you edited version ${input.basedOnVersion}): reload and edit again`,
      );
    await supersedeOlderProposals(trx, input.testCaseId, version);
    if (input.actor)
      await recordAudit(
        { db: trx },
        {
          projectId: input.projectId,
          kind: 'test_case.steps_edited',
          actor: input.actor,
          subject: input.testCaseId,
          details: { version, basedOnVersion: input.basedOnVersion, steps: input.steps.length, ...input.auditDetails },
        },
      );
    await input.onSaved?.(trx, version);
    return { version };
  });
  // An edit is a change on Proctor's side: a project that keeps its tests in Git gets it proposed there.
  await requestTestCaseSync(deps, input.testCaseId);
  return saved;
}

export interface StepEditorData {
  testCase: { id: string; name: string; generationStatus: string };
  version: number;
  steps: Step[];
  /** By step index: the newest run test that stopped there with a screenshot (its run's short id, its id). */
  screenshots: Map<number, { runShortId: string; runTestId: string }>;
}

/** The current steps of a test case of the project with their failure screenshots; undefined: no such test case. */
export async function loadStepEditor(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
): Promise<StepEditorData | undefined> {
  const testCase = await getTestCase(db, projectId, testCaseId);
  if (!testCase) return undefined;
  const shots = testCase.steps ? await stepFailureScreenshots(db, projectId, testCaseId) : [];
  return {
    testCase: { id: testCase.id, name: testCase.name, generationStatus: testCase.generationStatus },
    version: testCase.steps?.version ?? 0,
    steps: testCase.steps?.steps ?? [],
    screenshots: new Map(shots.map((s) => [s.failed_step_index!, { runShortId: s.short_id, runTestId: s.id }])),
  };
}
