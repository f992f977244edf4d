// Merge-request review settings per project and repository, and what a review of a merge request is asked to test.
import type { DB } from '../db/database.js';
import type { MergeRequestReviewSettingsTable } from '../db/schema.js';
import type { Selectable } from 'kysely';
import type { ApplicationOverride } from '../domain/precedence.js';
import { normalizeHandle } from '../domain/merge-requests.js';
import type { GitProviderId, MergeRequestRef } from '../domain/git.js';
import { existingApplicationShortIds, webApplicationShortIds } from '../db/queries/applications.js';
import {
  deleteReviewSettings,
  findRepositoryReviewSettings,
  findReviewSettings,
  listReviewSettings,
  repositoryProjectId,
  upsertReviewSettings,
} from '../db/queries/merge-request-review-settings.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import { ensureGitLabHook } from './gitlab-hooks.js';
import type { ServiceContext } from './context.js';

export interface MergeRequestReviewSettingsInput {
  provider: GitProviderId;
  repository: string;
  reviewContext?: string | null;
  autoRun?: boolean;
  includeDrafts?: boolean;
  commentOnOpen?: boolean;
  /** Provider environment name -> application short id. */
  environmentMapping?: Record<string, string>;
  handle?: string;
}

export interface MergeRequestReviewSettingsView {
  id: string;
  provider: GitProviderId;
  repository: string;
  reviewContext: string | null;
  autoRun: boolean;
  includeDrafts: boolean;
  commentOnOpen: boolean;
  environmentMapping: Record<string, string>;
  handle: string;
  /** Where the provider delivers events: the project hook (GitLab) or the GitHub App's webhook URL. */
  webhookUrl: string;
  /** GitLab: the project hook Proctor created or refreshed when these settings were saved. */
  webhookId: string | null;
  updatedAt: string;
  /** Only in a save's answer: GitLab could not be reached to create or refresh the hook (the settings were saved). */
  webhookProblem?: string;
}

/** The GitLab project hook, created or refreshed, with the integration's webhook secret as its token. */

type SettingsRow = Selectable<MergeRequestReviewSettingsTable>;

export const webhookUrl = (publicUrl: string, provider: GitProviderId) =>
  `${publicUrl.replace(/\/$/, '')}/webhooks/${provider}`;

function toView(row: SettingsRow, publicUrl: string): MergeRequestReviewSettingsView {
  return {
    id: row.id,
    provider: row.provider,
    repository: row.repository,
    reviewContext: row.review_context,
    autoRun: row.auto_run,
    includeDrafts: row.include_drafts,
    commentOnOpen: row.comment_on_open,
    environmentMapping: row.environment_mapping,
    handle: row.handle,
    webhookUrl: webhookUrl(publicUrl, row.provider),
    webhookId: row.webhook_id,
    updatedAt: row.updated_at.toISOString(),
  };
}

async function checkMapping(db: DB, projectId: string, mapping: Record<string, string>): Promise<void> {
  const shortIds = [...new Set(Object.values(mapping))];
  if (shortIds.length === 0) return;
  const found = await existingApplicationShortIds(db, projectId, shortIds);
  const missing = shortIds.filter((s) => !found.includes(s));
  if (missing.length) throw new NotFoundError('Application', missing.join(', '));
}

/**
 * Saves the settings of one repository (created, or the given fields changed). For GitLab, saving also creates or
 * refreshes the project webhook, whose secret token is the GitLab integration's webhook secret (never returned).
 */
export async function saveMergeRequestReviewSettings(
  deps: ServiceContext<'publicUrl'>,
  projectId: string,
  input: MergeRequestReviewSettingsInput,
): Promise<MergeRequestReviewSettingsView> {
  const repository = input.repository.trim().replace(/^\/+|\/+$/g, '');
  if (!/^[^\s/]+(\/[^\s/]+)+$/.test(repository))
    throw new InvalidError('repository must be `owner/name` (GitHub) or the project path `group/project` (GitLab)');
  if (input.environmentMapping) await checkMapping(deps.db, projectId, input.environmentMapping);
  const taken = await repositoryProjectId(deps.db, input.provider, repository);
  if (taken !== undefined && taken !== projectId)
    throw new ConflictError(`${input.provider} repository ${repository} is connected to another project`);

  const fields: Record<string, unknown> & Partial<{ webhook_id: string }> = {
    ...(input.reviewContext !== undefined ? { review_context: input.reviewContext } : {}),
    ...(input.autoRun !== undefined ? { auto_run: input.autoRun } : {}),
    ...(input.includeDrafts !== undefined ? { include_drafts: input.includeDrafts } : {}),
    ...(input.commentOnOpen !== undefined ? { comment_on_open: input.commentOnOpen } : {}),
    ...(input.environmentMapping !== undefined
      ? { environment_mapping: JSON.stringify(input.environmentMapping) }
      : {}),
    ...(input.handle !== undefined ? { handle: normalizeHandle(input.handle) } : {}),
  };
  // The hook first: without a GitLab integration, or with credentials GitLab refuses, nothing is saved. GitLab not
  // answering saves the settings and says so (`webhookProblem`): saving again creates the hook.
  let webhookProblem: string | null = null;
  if (input.provider === 'gitlab') {
    try {
      Object.assign(fields, {
        webhook_id: await ensureGitLabHook(
          deps,
          projectId,
          repository,
          webhookUrl(deps.publicUrl, input.provider),
          'review',
        ),
      });
    } catch (err) {
      if (!(err instanceof UnavailableError)) throw err;
      webhookProblem = `${err.message}; save the settings again to create the project hook`;
    }
  }
  const row = await upsertReviewSettings(deps.db, { projectId, provider: input.provider, repository, fields });
  return { ...toView(row, deps.publicUrl), ...(webhookProblem && { webhookProblem }) };
}

export async function listMergeRequestReviewSettings(
  deps: Pick<ServiceContext<'publicUrl'>, 'db' | 'publicUrl'>,
  projectId: string,
): Promise<MergeRequestReviewSettingsView[]> {
  const rows = await listReviewSettings(deps.db, projectId);
  return rows.map((r) => toView(r, deps.publicUrl));
}

export async function getMergeRequestReviewSettings(
  deps: Pick<ServiceContext<'publicUrl'>, 'db' | 'publicUrl'>,
  projectId: string,
  id: string,
): Promise<MergeRequestReviewSettingsView> {
  const row = await findReviewSettings(deps.db, projectId, id);
  if (!row) throw new NotFoundError('Merge request review settings', id);
  return toView(row, deps.publicUrl);
}

/** Stops reviewing the repository: later deliveries for it are refused (404), running reviews finish. */
export async function deleteMergeRequestReviewSettings(
  { db }: ServiceContext,
  projectId: string,
  id: string,
): Promise<void> {
  if (!(await deleteReviewSettings(db, projectId, id))) throw new NotFoundError('Merge request review settings', id);
}

/** What the workflow needs to decide (read on each decision, so a change of settings applies at once). */
export interface ReviewDecisionSettings {
  autoRun: boolean;
  includeDrafts: boolean;
  commentOnOpen: boolean;
  /** Environments whose deployments must be ready; empty: any deployment of the commit. */
  environments: string[];
  handle: string;
}

export async function decisionSettings(
  { db }: ServiceContext,
  projectId: string,
  ref: MergeRequestRef,
): Promise<ReviewDecisionSettings | null> {
  const row = await findRepositoryReviewSettings(db, projectId, ref);
  if (!row) return null;
  return {
    autoRun: row.auto_run,
    includeDrafts: row.include_drafts,
    commentOnOpen: row.comment_on_open,
    environments: Object.keys(row.environment_mapping),
    handle: row.handle,
  };
}

/**
 * The environments a review tests: each mapped application at its environment's deployment URL; a manual trigger's
 * URL for every mapped application (or, with no mapping, for every application of the project, as the default
 * environment's deployment does).
 */
export async function reviewOverrides(
  { db }: ServiceContext,
  projectId: string,
  ref: MergeRequestRef,
  deployments: Record<string, string>,
  manualUrl?: string,
): Promise<{ overrides: ApplicationOverride[]; context: string | null }> {
  const row = await findRepositoryReviewSettings(db, projectId, ref);
  const mapping = row?.environment_mapping ?? {};
  const overrides = new Map<string, ApplicationOverride>();
  for (const [environment, applicationShortId] of Object.entries(mapping)) {
    const url = manualUrl ?? deployments[environment];
    if (url) overrides.set(applicationShortId, { applicationShortId, environment: { url, name: environment } });
  }
  if (Object.keys(mapping).length === 0) {
    const url = manualUrl ?? Object.values(deployments)[0];
    const apps = await webApplicationShortIds(db, projectId);
    if (url) for (const shortId of apps) overrides.set(shortId, { applicationShortId: shortId, environment: { url } });
  }
  return { overrides: [...overrides.values()], context: row?.review_context ?? null };
}
