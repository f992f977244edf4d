import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import { findRow } from './rows.js';
import type { MergeRequestReviewSettingsTable } from '../schema.js';
import type { GitProviderId, MergeRequestRef } from '../../domain/git.js';
import { newId } from '../../ids.js';
import { findProjectRow, listProjectRows } from './project-rows.js';

export type ReviewSettingsRow = Selectable<MergeRequestReviewSettingsTable>;

/** The project a repository is connected to, if any. */
export async function repositoryProjectId(
  db: DB,
  provider: GitProviderId,
  repository: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('merge_request_review_settings')
    .select('project_id')
    .where('provider', '=', provider)
    .where('repository', '=', repository)
    .executeTakeFirst();
  return row?.project_id;
}

/** Creates the repository's settings, or changes the given fields of the existing ones. */
export async function upsertReviewSettings(
  db: DB,
  input: { projectId: string; provider: GitProviderId; repository: string; fields: Record<string, unknown> },
): Promise<ReviewSettingsRow> {
  return db
    .insertInto('merge_request_review_settings')
    .values({
      id: newId(),
      project_id: input.projectId,
      provider: input.provider,
      repository: input.repository,
      ...input.fields,
    })
    .onConflict((oc) => oc.columns(['provider', 'repository']).doUpdateSet({ ...input.fields, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listReviewSettings(db: DB, projectId: string): Promise<ReviewSettingsRow[]> {
  return listProjectRows(db, 'merge_request_review_settings', projectId, 'created_at');
}

export async function findReviewSettings(
  db: DB,
  projectId: string,
  id: string,
): Promise<ReviewSettingsRow | undefined> {
  return findProjectRow(db, 'merge_request_review_settings', projectId, 'id', id);
}

/** False when the project has no such settings. */
export async function deleteReviewSettings(db: DB, projectId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('merge_request_review_settings')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return deleted.numDeletedRows !== 0n;
}

/** The settings of the merge request's repository in the project. */
export async function findRepositoryReviewSettings(
  db: DB,
  projectId: string,
  ref: Pick<MergeRequestRef, 'provider' | 'repository'>,
): Promise<ReviewSettingsRow | undefined> {
  return findRow(db, 'merge_request_review_settings', {
    project_id: projectId,
    provider: ref.provider,
    repository: ref.repository,
  });
}
