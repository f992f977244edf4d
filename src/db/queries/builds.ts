import type { DB } from '../database.js';
import { findRow } from './rows.js';
import type { BuildFileType, BuildPlatform } from '../../builds/file-types.js';
import { newId, newShortId } from '../../ids.js';
import { findProjectRow } from './project-rows.js';

export interface BuildView {
  applicationBuildShortId: string;
  platform: BuildPlatform;
  fileName: string;
  fileSizeBytes: number;
  createdAt: string;
}

type BuildRow = {
  short_id: string;
  platform: BuildPlatform;
  file_name: string;
  file_size_bytes: string;
  created_at: Date;
};

const toView = (row: BuildRow): BuildView => ({
  applicationBuildShortId: row.short_id,
  platform: row.platform,
  fileName: row.file_name,
  fileSizeBytes: Number(row.file_size_bytes),
  createdAt: row.created_at.toISOString(),
});

export interface NewBuildUpload {
  projectId: string;
  applicationId: string;
  tokenHash: string;
  fileName: string;
  fileType: BuildFileType;
  blobKey: string;
  maxBytes: number;
  expiresAt: Date;
}

export async function insertBuildUpload(db: DB, input: NewBuildUpload): Promise<void> {
  await db
    .insertInto('build_uploads')
    .values({
      id: newId(),
      project_id: input.projectId,
      application_id: input.applicationId,
      token_hash: input.tokenHash,
      file_name: input.fileName,
      file_type: input.fileType,
      blob_key: input.blobKey,
      max_bytes: input.maxBytes,
      expires_at: input.expiresAt,
    })
    .execute();
}

export async function findBuildUpload(db: DB, projectId: string, applicationId: string, tokenHash: string) {
  return findRow(db, 'build_uploads', { token_hash: tokenHash, project_id: projectId, application_id: applicationId });
}

/** Marks the upload used; false when another request got there first (the token is one-time). */
export async function consumeBuildUpload(db: DB, uploadId: string): Promise<boolean> {
  const row = await db
    .updateTable('build_uploads')
    .set({ used_at: new Date() })
    .where('id', '=', uploadId)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertBuild(
  db: DB,
  input: {
    projectId: string;
    applicationId: string;
    platform: BuildPlatform;
    fileName: string;
    fileSizeBytes: number;
    blobKey: string;
  },
): Promise<BuildView> {
  const row = await db
    .insertInto('application_builds')
    .values({
      id: newId(),
      short_id: newShortId('build'),
      project_id: input.projectId,
      application_id: input.applicationId,
      platform: input.platform,
      file_name: input.fileName,
      file_size_bytes: input.fileSizeBytes,
      blob_key: input.blobKey,
    })
    .returning(['short_id', 'platform', 'file_name', 'file_size_bytes', 'created_at'])
    .executeTakeFirstOrThrow();
  return toView(row);
}

export async function listBuilds(db: DB, projectId: string, applicationId: string): Promise<BuildView[]> {
  const rows = await db
    .selectFrom('application_builds')
    .select(['short_id', 'platform', 'file_name', 'file_size_bytes', 'created_at'])
    .where('project_id', '=', projectId)
    .where('application_id', '=', applicationId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toView);
}

export async function findBuild(db: DB, projectId: string, shortId: string) {
  return findProjectRow(db, 'application_builds', projectId, 'short_id', shortId);
}

export const buildView = (row: BuildRow): BuildView => toView(row);

/**
 * The environment that holds a build: the oldest one already holding it, or a new one named after the file.
 * Two runs racing on a brand-new build may each create one; both are correct, the later is merely unused.
 */
export async function environmentForBuild(
  db: DB,
  build: { id: string; project_id: string; application_id: string; file_name: string },
): Promise<{ id: string; shortId: string }> {
  const existing = await db
    .selectFrom('environments')
    .select(['id', 'short_id'])
    .where('application_build_id', '=', build.id)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  if (existing) return { id: existing.id, shortId: existing.short_id };
  const id = newId();
  const name = `Build ${build.file_name}`.slice(0, 80);
  const shortId = newShortId('environment', name);
  await db
    .insertInto('environments')
    .values({
      id,
      short_id: shortId,
      project_id: build.project_id,
      application_id: build.application_id,
      name,
      url: null,
      application_build_id: build.id,
      is_production: false,
    })
    .execute();
  return { id, shortId };
}
