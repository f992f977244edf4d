import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GitIntegrationsTable } from '../schema.js';
import type { Selectable } from 'kysely';
import { openNullable, sealNullable } from '../secrets.js';
import { findProjectRow, listProjectRows } from './project-rows.js';

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

export type GitIntegrationValues = Pick<
  GitIntegrationRow,
  'auth' | 'app_id' | 'private_key' | 'token' | 'webhook_secret' | 'base_url'
>;

// The token, the App's private key and the webhook secret are sealed at rest (src/db/secrets.ts): rows leave this
// module opened and enter it sealed, so nothing above sees the stored form.
async function opened(db: DB, row: GitIntegrationRow): Promise<GitIntegrationRow>;
async function opened(db: DB, row: GitIntegrationRow | undefined): Promise<GitIntegrationRow | undefined>;
async function opened(db: DB, row: GitIntegrationRow | undefined): Promise<GitIntegrationRow | undefined> {
  if (!row) return undefined;
  const [private_key, token, webhook_secret] = await Promise.all([
    openNullable(db, row.private_key),
    openNullable(db, row.token),
    openNullable(db, row.webhook_secret),
  ]);
  return { ...row, private_key, token, webhook_secret };
}

async function sealed<V extends GitIntegrationValues>(db: DB, values: V): Promise<V> {
  const [private_key, token, webhook_secret] = await Promise.all([
    sealNullable(db, values.private_key),
    sealNullable(db, values.token),
    sealNullable(db, values.webhook_secret),
  ]);
  return { ...values, private_key, token, webhook_secret };
}

export async function listGitIntegrationRows(db: DB, projectId: string): Promise<GitIntegrationRow[]> {
  const rows = await listProjectRows(db, 'git_integrations', projectId, 'provider');
  return Promise.all(rows.map((r) => opened(db, r)));
}

export async function findGitIntegrationRow(
  db: DB,
  projectId: string,
  shortId: string,
): Promise<GitIntegrationRow | undefined> {
  return opened(db, await findProjectRow(db, 'git_integrations', projectId, 'short_id', shortId));
}

export async function findGitIntegrationByProvider(
  db: DB,
  projectId: string,
  provider: GitIntegrationRow['provider'],
): Promise<GitIntegrationRow | undefined> {
  return opened(db, await findProjectRow(db, 'git_integrations', projectId, 'provider', provider));
}

/** Every integration of a provider that has a webhook secret, across projects (webhook deliveries name no project). */
export async function gitIntegrationsWithWebhookSecret(
  db: DB,
  provider: GitIntegrationRow['provider'],
): Promise<GitIntegrationRow[]> {
  const rows = await db
    .selectFrom('git_integrations')
    .selectAll()
    .where('provider', '=', provider)
    .where('webhook_secret', 'is not', null)
    .orderBy('created_at')
    .execute();
  return Promise.all(rows.map((r) => opened(db, r)));
}

/** True for the unique (project, provider) violation, the backstop when two requests race to create one. */
export function isGitIntegrationConflict(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === 'git_integrations_project_provider');
}

export async function insertGitIntegration(
  db: DB,
  row: {
    id: string;
    shortId: string;
    projectId: string;
    provider: GitIntegrationRow['provider'];
  } & GitIntegrationValues,
): Promise<GitIntegrationRow> {
  const { id, shortId, projectId, provider, ...values } = row;
  const inserted = await db
    .insertInto('git_integrations')
    .values({ id, short_id: shortId, project_id: projectId, provider, ...(await sealed(db, values)) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return opened(db, inserted);
}

export async function updateGitIntegration(
  db: DB,
  id: string,
  values: GitIntegrationValues,
): Promise<GitIntegrationRow> {
  const updated = await db
    .updateTable('git_integrations')
    .set({ ...(await sealed(db, values)), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return opened(db, updated);
}

export async function deleteGitIntegration(db: DB, id: string): Promise<void> {
  await db.deleteFrom('git_integrations').where('id', '=', id).execute();
}

/** Stores `secret` unless the integration has one already; returns the one it has afterwards. */
export async function setWebhookSecretIfMissing(db: DB, id: string, secret: string): Promise<string> {
  await db
    .updateTable('git_integrations')
    .set({ webhook_secret: await sealNullable(db, secret), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('webhook_secret', 'is', null)
    .execute();
  const row = await db
    .selectFrom('git_integrations')
    .select('webhook_secret')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return (await openNullable(db, row.webhook_secret))!;
}
