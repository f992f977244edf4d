// Git sync's setting (which repository of which integration, which folder, which default branch) and what the
// last looks at the folder found, as the API shows them. The syncing itself: git-sync.ts (outbound) and
// git-sync-inbound.ts (the push webhook).
import { z } from 'zod';
import {
  deleteGitSyncSettings as deleteRow,
  findGitSyncSettings,
  gitSyncFiles,
  upsertGitSyncSettings,
  type GitSyncFileRow,
  type GitSyncSettingsRow,
} from '../db/queries/git-sync.js';
import { findGitIntegrationByProvider } from '../db/queries/git-integrations.js';
import { NotFoundError, UnavailableError } from '../domain/errors.js';
import type { GitSyncFileSchema, GitSyncSettingsSchema, SaveGitSyncSettings } from '../schemas/git-sync.js';
import type { ServiceContext } from './context.js';
import { ensureWebhookSecret, providerName } from './git-clients.js';
import { webhookUrl } from './merge-request-reviews.js';
import { ensureGitLabHook } from './gitlab-hooks.js';

export type GitSyncSettingsInput = z.infer<typeof SaveGitSyncSettings>;
export type GitSyncSettingsView = z.infer<typeof GitSyncSettingsSchema>;
export type GitSyncFileView = z.infer<typeof GitSyncFileSchema>;

const toView = (row: GitSyncSettingsRow, publicUrl: string): GitSyncSettingsView => ({
  provider: row.provider,
  repository: row.repository,
  folder: row.folder,
  branch: row.branch,
  webhookUrl: webhookUrl(publicUrl, row.provider),
  updatedAt: row.updated_at.toISOString(),
});

/**
 * Sets the project's sync (one per project; a second save replaces it). The project needs the provider's Git
 * integration (404 otherwise, nothing saved); its webhook secret is created when missing, since pushes are
 * verified with it. Moving to another repository or folder forgets what was agreed with the old one.
 */
export async function saveGitSyncSettings(
  deps: ServiceContext<'publicUrl'>,
  projectId: string,
  input: GitSyncSettingsInput,
): Promise<GitSyncSettingsView> {
  if (!(await findGitIntegrationByProvider(deps.db, projectId, input.provider)))
    throw new NotFoundError(
      `${providerName[input.provider]} integration`,
      `No ${providerName[input.provider]} integration in this project: connect one first (POST /v1/git-integrations)`,
    );
  await ensureWebhookSecret(deps, projectId, input.provider);
  // GitLab delivers pushes only to a project hook: Proctor creates (or widens) its hook before saving. Refused
  // credentials save nothing; GitLab not answering saves the setting and says so, as review settings do.
  let webhookProblem: string | undefined;
  if (input.provider === 'gitlab') {
    try {
      await ensureGitLabHook(deps, projectId, input.repository, webhookUrl(deps.publicUrl, 'gitlab'), 'sync');
    } catch (err) {
      if (!(err instanceof UnavailableError)) throw err;
      webhookProblem = `${err.message}; save the setting again to create the project hook`;
    }
  }
  const before = await findGitSyncSettings(deps.db, projectId);
  const row = {
    project_id: projectId,
    provider: input.provider,
    repository: input.repository,
    folder: input.folder,
    branch: input.branch ?? 'main',
  };
  const moved =
    before &&
    (before.provider !== row.provider || before.repository !== row.repository || before.folder !== row.folder);
  return deps.db.transaction().execute(async (trx) => {
    if (moved) await deleteRow(trx, projectId);
    const view = toView(await upsertGitSyncSettings(trx, row), deps.publicUrl);
    return webhookProblem ? { ...view, webhookProblem } : view;
  });
}

export async function getGitSyncSettings(
  deps: ServiceContext<'publicUrl'>,
  projectId: string,
): Promise<GitSyncSettingsView> {
  const row = await findGitSyncSettings(deps.db, projectId);
  if (!row) throw new NotFoundError('Git sync setting', 'this project has no Git sync set up');
  return toView(row, deps.publicUrl);
}

export async function deleteGitSyncSettings({ db }: ServiceContext, projectId: string): Promise<void> {
  if (!(await deleteRow(db, projectId)))
    throw new NotFoundError('Git sync setting', 'this project has no Git sync set up');
}

const fileView = (row: GitSyncFileRow): GitSyncFileView => ({
  path: row.path,
  testCaseId: row.test_case_id,
  state: row.state,
  reason: row.reason,
  pullRequestUrl: row.pull_request_url,
  base: row.base_text,
  ours: row.ours_text,
  theirs: row.theirs_text,
  updatedAt: row.updated_at.toISOString(),
});

/** The setting and every file known in the folder, conflicts with both texts. */
export async function gitSyncStatus(deps: ServiceContext<'publicUrl'>, projectId: string) {
  const settings = await getGitSyncSettings(deps, projectId);
  const files = (await gitSyncFiles(deps.db, projectId)).map(fileView);
  return { settings, files, conflicts: files.filter((f) => f.state === 'conflict').length };
}
