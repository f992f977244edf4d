// Scenarios as business operations: the project's scenarios, each found only in the caller's project; an empty
// description is no description.
import {
  createScenario as insertScenario,
  deleteScenario as deleteScenarioRow,
  getScenario,
  listScenarios as selectScenarios,
  updateScenario as updateScenarioRow,
  type ScenarioView,
} from '../db/queries/scenarios.js';
import type { ServiceContext } from './context.js';
import { projectResource } from './project-resources.js';

export type { ScenarioView };

const resource = projectResource('Scenario', { list: selectScenarios, get: getScenario });

export const listScenarios = resource.list;
/** The scenario of the caller's project, or NotFoundError (also when it belongs to another project). */
export const requireScenario = resource.require;

export function createScenario(
  { db }: ServiceContext,
  projectId: string,
  input: { name: string; description?: string | null; instructions: string },
): Promise<ScenarioView> {
  return insertScenario(db, projectId, { ...input, description: input.description || null });
}

export async function updateScenario(
  { db }: ServiceContext,
  projectId: string,
  scenarioShortId: string,
  patch: { name?: string; description?: string | null; instructions?: string },
): Promise<ScenarioView & { id: string }> {
  const scenario = await requireScenario({ db }, projectId, scenarioShortId);
  await updateScenarioRow(db, scenario.id, {
    ...patch,
    ...(patch.description !== undefined && { description: patch.description || null }),
  });
  return requireScenario({ db }, projectId, scenario.shortId);
}

/** Test cases that used it keep running without a scenario. */
export async function deleteScenario(
  { db }: ServiceContext,
  projectId: string,
  scenarioShortId: string,
): Promise<void> {
  const scenario = await requireScenario({ db }, projectId, scenarioShortId);
  await deleteScenarioRow(db, scenario.id);
}
