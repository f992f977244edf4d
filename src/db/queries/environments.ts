import type { DB } from '../database.js';
import { newId, newShortId } from '../../ids.js';
import { accessView, type EnvironmentAccess, type EnvironmentAccessView } from '../../domain/environment-access.js';
import { findProjectRow, updateProjectRow } from './project-rows.js';
import type { SelectedRow } from './rows.js';

export interface EnvironmentView {
  shortId: string;
  name: string;
  url: string | null;
  applicationBuildShortId: string | null;
  isProduction: boolean;
  isDefault: boolean;
  /** Basic auth, extra headers and cookies applied to every page of the environment; secrets come back null. */
  access: EnvironmentAccessView;
  createdAt: string;
}

/** The project's environments with their application's default and build (the dashboard lists them too). */
export function selectEnvironments(db: DB, projectId: string) {
  return db
    .selectFrom('environments as e')
    .innerJoin('applications as a', 'a.id', 'e.application_id')
    .leftJoin('application_builds as b', 'b.id', 'e.application_build_id')
    .select([
      'e.id',
      'e.short_id',
      'e.name',
      'e.url',
      'e.is_production',
      'e.created_at',
      'e.application_id',
      'b.short_id as build_short_id',
      'a.default_environment_id',
      'e.access',
    ])
    .where('e.project_id', '=', projectId);
}

type Row = SelectedRow<typeof selectEnvironments>;

function toView(row: Row): EnvironmentView {
  return {
    shortId: row.short_id,
    name: row.name,
    url: row.url,
    applicationBuildShortId: row.build_short_id,
    isProduction: row.is_production,
    isDefault: row.default_environment_id === row.id,
    access: accessView(row.access as EnvironmentAccess | null),
    createdAt: row.created_at.toISOString(),
  };
}

export async function listEnvironments(db: DB, projectId: string, applicationId: string): Promise<EnvironmentView[]> {
  const rows = await selectEnvironments(db, projectId)
    .where('e.application_id', '=', applicationId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  return rows.map(toView);
}

export async function findEnvironment(db: DB, projectId: string, shortId: string) {
  return findProjectRow(db, 'environments', projectId, 'short_id', shortId);
}

export async function getEnvironmentView(
  db: DB,
  projectId: string,
  shortId: string,
): Promise<EnvironmentView | undefined> {
  const row = await selectEnvironments(db, projectId).where('e.short_id', '=', shortId).executeTakeFirst();
  return row && toView(row);
}

export interface NewEnvironment {
  projectId: string;
  applicationId: string;
  name: string;
  url: string | null;
  buildId: string | null;
  isProduction: boolean;
  /** Make it the application's default (the first environment of an application always is). */
  makeDefault: boolean;
}

export async function createEnvironment(db: DB, input: NewEnvironment): Promise<string> {
  const shortId = newShortId('environment', input.name);
  await db.transaction().execute(async (trx) => {
    const id = newId();
    await trx
      .insertInto('environments')
      .values({
        id,
        short_id: shortId,
        project_id: input.projectId,
        application_id: input.applicationId,
        name: input.name,
        url: input.url,
        application_build_id: input.buildId,
        is_production: input.isProduction,
      })
      .execute();
    const app = await trx
      .selectFrom('applications')
      .select('default_environment_id')
      .where('id', '=', input.applicationId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (input.makeDefault || app.default_environment_id === null) {
      await trx
        .updateTable('applications')
        .set({ default_environment_id: id })
        .where('id', '=', input.applicationId)
        .execute();
    }
  });
  return shortId;
}

export async function updateEnvironment(
  db: DB,
  env: { id: string; applicationId: string },
  patch: { name?: string; url?: string; isProduction?: boolean; makeDefault?: boolean },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await updateProjectRow(trx, 'environments', env.id, {
      name: patch.name,
      url: patch.url,
      // An environment is a URL or an installed build: a new URL replaces the build.
      application_build_id: patch.url === undefined ? undefined : null,
      is_production: patch.isProduction,
    });
    if (patch.makeDefault) {
      await trx
        .updateTable('applications')
        .set({ default_environment_id: env.id })
        .where('id', '=', env.applicationId)
        .execute();
    }
  });
}

export async function deleteEnvironment(db: DB, env: { id: string; applicationId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('environments').where('id', '=', env.id).execute();
    // The default falls back to the oldest remaining environment, so a run never lacks one while any exists.
    const next = await trx
      .selectFrom('environments')
      .select('id')
      .where('application_id', '=', env.applicationId)
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    await trx
      .updateTable('applications')
      .set({ default_environment_id: next?.id ?? null })
      .where('id', '=', env.applicationId)
      .where('default_environment_id', '=', env.id)
      .execute();
  });
}

/** What an environment points a run at: its URL, or the build it installs. */
export async function environmentTarget(
  db: DB,
  environmentId: string,
): Promise<{ url: string | null; buildId: string | null }> {
  const row = await db
    .selectFrom('environments')
    .select(['url', 'application_build_id'])
    .where('id', '=', environmentId)
    .executeTakeFirstOrThrow();
  return { url: row.url, buildId: row.application_build_id };
}
