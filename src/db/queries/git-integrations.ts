import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GitIntegrationsTable } from '../schema.js';
import type { Selectable } from 'kysely';

export type GitIntegrationRow = Selectable<GitIntegrationsTable>;

/** What the API shows of an integration: never a secret, only whether one is stored. */
export interface GitIntegrationView {
  shortId: string;
  provider: 'github' | 'gitlab';
  auth: 'app' | 'token';
  appId: string | null;
  baseUrl: string | null;
  hasPrivateKey: boolean;
  hasToken: boolean;
  hasWebhookSecret: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The one place an integration row becomes an API shape, so a secret cannot leak through another path. */
export function toGitIntegrationView(row: GitIntegrationRow): GitIntegrationView {
  return {
    shortId: row.short_id,
    provider: row.provider,
    auth: row.auth,
    appId: row.app_id,
    baseUrl: row.base_url,
    hasPrivateKey: row.private_key !== null,
    hasToken: row.token !== null,
    hasWebhookSecret: row.webhook_secret !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type GitIntegrationValues = Pick<GitIntegrationRow, 'auth' | 'app_id' | 'private_key' | 'token' | 'webhook_secret' | 'base_url'>;

export async function listGitIntegrationRows(db: DB, projectId: string): Promise<GitIntegrationRow[]> {
  return db.selectFrom('git_integrations').selectAll().where('project_id', '=', projectId).orderBy('provider').execute();
}

export async function findGitIntegrationRow(db: DB, projectId: string, shortId: string): Promise<GitIntegrationRow | undefined> {
  return db.selectFrom('git_integrations').selectAll().where('project_id', '=', projectId).where('short_id', '=', shortId).executeTakeFirst();
}

export async function findGitIntegrationByProvider(db: DB, projectId: string, provider: GitIntegrationRow['provider']): Promise<GitIntegrationRow | undefined> {
  return db.selectFrom('git_integrations').selectAll().where('project_id', '=', projectId).where('provider', '=', provider).executeTakeFirst();
}

/** Every integration of a provider that has a webhook secret, across projects (webhook deliveries name no project). */
export async function gitIntegrationsWithWebhookSecret(db: DB, provider: GitIntegrationRow['provider']): Promise<GitIntegrationRow[]> {
  return db.selectFrom('git_integrations').selectAll().where('provider', '=', provider).where('webhook_secret', 'is not', null).orderBy('created_at').execute();
}

/** True for the unique (project, provider) violation, the backstop when two requests race to create one. */
export function isGitIntegrationConflict(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === 'git_integrations_project_provider');
}

export async function insertGitIntegration(
  db: DB,
  row: { id: string; shortId: string; projectId: string; provider: GitIntegrationRow['provider'] } & GitIntegrationValues,
): Promise<GitIntegrationRow> {
  const { id, shortId, projectId, provider, ...values } = row;
  return db
    .insertInto('git_integrations')
    .values({ id, short_id: shortId, project_id: projectId, provider, ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateGitIntegration(db: DB, id: string, values: GitIntegrationValues): Promise<GitIntegrationRow> {
  return db
    .updateTable('git_integrations')
    .set({ ...values, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteGitIntegration(db: DB, id: string): Promise<void> {
  await db.deleteFrom('git_integrations').where('id', '=', id).execute();
}

/** Stores `secret` unless the integration has one already; returns the one it has afterwards. */
export async function setWebhookSecretIfMissing(db: DB, id: string, secret: string): Promise<string> {
  await db
    .updateTable('git_integrations')
    .set({ webhook_secret: secret, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('webhook_secret', 'is', null)
    .execute();
  const row = await db.selectFrom('git_integrations').select('webhook_secret').where('id', '=', id).executeTakeFirstOrThrow();
  return row.webhook_secret!;
}
