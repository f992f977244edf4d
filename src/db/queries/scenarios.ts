import type { DB } from '../database.js';
import type { Scenario } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { projectViews, updateProjectRow } from './project-rows.js';

export interface ScenarioView {
  shortId: string;
  name: string;
  description: string | null;
  instructions: string;
  createdAt: string;
  updatedAt: string;
}

export function toScenarioView(row: Scenario): ScenarioView {
  return {
    shortId: row.short_id,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const views = projectViews('scenarios', toScenarioView, 'created_at');

/** The project's scenarios, oldest first. */
export const listScenarios = views.list;
export const getScenario = views.get;

export async function createScenario(
  db: DB,
  projectId: string,
  input: { name: string; description: string | null; instructions: string },
): Promise<ScenarioView> {
  const shortId = newShortId('scenario');
  await db
    .insertInto('scenarios')
    .values({
      id: newId(),
      short_id: shortId,
      project_id: projectId,
      name: input.name,
      description: input.description,
      instructions: input.instructions,
    })
    .execute();
  const { id: _id, ...view } = (await getScenario(db, projectId, shortId))!;
  return view;
}

export async function updateScenario(
  db: DB,
  id: string,
  patch: { name?: string; description?: string | null; instructions?: string },
): Promise<void> {
  const { name, description, instructions } = patch;
  await updateProjectRow(db, 'scenarios', id, { name, description, instructions }, { touch: true });
}

/** Test cases that used it keep running without a scenario (their foreign key sets null). */
export async function deleteScenario(db: DB, id: string): Promise<void> {
  await db.deleteFrom('scenarios').where('id', '=', id).execute();
}
