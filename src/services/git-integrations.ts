// Git provider integrations as business operations: a project's connection to GitHub (an App or a token) or
// GitLab (a project or group access token). Secrets are stored like secret configs (in the project's database
// rows, write-only through the API: views say `hasPrivateKey`, `hasToken`, `hasWebhookSecret`). One integration
// per provider per project. Change and merge-request reviews get their client through `gitClientFor` (git-clients.ts).
import { createPrivateKey } from 'node:crypto';
import type { DB } from '../db/database.js';
import {
  deleteGitIntegration as deleteRow,
  findGitIntegrationByProvider,
  findGitIntegrationRow,
  insertGitIntegration,
  isGitIntegrationConflict,
  listGitIntegrationRows,
  toGitIntegrationView,
  updateGitIntegration as updateRow,
  type GitIntegrationRow,
  type GitIntegrationValues,
  type GitIntegrationView,
} from '../db/queries/git-integrations.js';
import { newId, newShortId } from '../ids.js';
import { ConflictError, InvalidError, NotFoundError } from '../domain/errors.js';
import { systemActor, type AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import { providerName } from './git-clients.js';
import type { ServiceContext } from './context.js';

export type { GitIntegrationView } from '../db/queries/git-integrations.js';

export type CreateGitIntegrationInput =
  | { provider: 'github'; auth: 'app'; appId: string; privateKey: string; webhookSecret?: string; baseUrl?: string }
  | { provider: 'github'; auth: 'token'; token: string; webhookSecret?: string; baseUrl?: string }
  | { provider: 'gitlab'; token: string; webhookSecret?: string; baseUrl?: string };

/** A partial change; `null` removes the webhook secret or returns to the provider's public base URL. */
export interface UpdateGitIntegrationInput {
  auth?: 'app' | 'token';
  appId?: string;
  privateKey?: string;
  token?: string;
  webhookSecret?: string | null;
  baseUrl?: string | null;
}

const integrationNotFound = () => new NotFoundError('Git integration');

/** A GitHub App key is an RSA private key in PEM (PKCS#1 as GitHub hands it out, or PKCS#8). */
function checkPrivateKey(pem: string): void {
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw new InvalidError(
      'privateKey: not a PEM private key; paste the whole .pem file GitHub generated, BEGIN and END lines included',
    );
  }
  if (type !== 'rsa')
    throw new InvalidError(`privateKey: a GitHub App key is an RSA key, this one is ${type ?? 'of an unknown type'}`);
}

function checkBaseUrl(baseUrl: string | null | undefined): void {
  if (baseUrl === null || baseUrl === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new InvalidError('baseUrl: must be an http(s) URL without query or fragment');
  }
}

const normalizeBaseUrl = (baseUrl: string | null | undefined) => (baseUrl ? baseUrl.replace(/\/+$/, '') : null);

/** The stored values a complete input describes, checked. */
function valuesOf(input: CreateGitIntegrationInput): GitIntegrationValues {
  checkBaseUrl(input.baseUrl);
  const common = { webhook_secret: input.webhookSecret ?? null, base_url: normalizeBaseUrl(input.baseUrl) };
  if (input.provider === 'github' && input.auth === 'app') {
    checkPrivateKey(input.privateKey);
    return { ...common, auth: 'app', app_id: input.appId, private_key: input.privateKey, token: null };
  }
  return { ...common, auth: 'token', app_id: null, private_key: null, token: input.token };
}

async function requireRow(db: DB, projectId: string, shortId: string): Promise<GitIntegrationRow> {
  const row = await findGitIntegrationRow(db, projectId, shortId);
  if (!row) throw integrationNotFound();
  return row;
}

export async function listGitIntegrations({ db }: ServiceContext, projectId: string): Promise<GitIntegrationView[]> {
  return (await listGitIntegrationRows(db, projectId)).map(toGitIntegrationView);
}

export async function getGitIntegration(
  { db }: ServiceContext,
  projectId: string,
  shortId: string,
): Promise<GitIntegrationView> {
  return toGitIntegrationView(await requireRow(db, projectId, shortId));
}

export async function createGitIntegration(
  { db }: ServiceContext,
  projectId: string,
  input: CreateGitIntegrationInput,
  actor: AuditActor = systemActor,
): Promise<GitIntegrationView> {
  const values = valuesOf(input);
  const taken = () =>
    new ConflictError(
      `provider: this project already has a ${providerName[input.provider]} integration; update or delete it`,
    );
  if (await findGitIntegrationByProvider(db, projectId, input.provider)) throw taken();
  try {
    const row = await insertGitIntegration(db, {
      id: newId(),
      shortId: newShortId('gitIntegration', input.provider),
      projectId,
      provider: input.provider,
      ...values,
    });
    await auditIntegration(db, projectId, actor, 'git_integration.created', row, input);
    return toGitIntegrationView(row);
  } catch (err) {
    if (isGitIntegrationConflict(err)) throw taken();
    throw err;
  }
}

export async function updateGitIntegration(
  { db }: ServiceContext,
  projectId: string,
  shortId: string,
  patch: UpdateGitIntegrationInput,
  actor: AuditActor = systemActor,
): Promise<GitIntegrationView> {
  const row = await requireRow(db, projectId, shortId);
  if (row.provider === 'gitlab') {
    for (const field of ['auth', 'appId', 'privateKey'] as const) {
      if (patch[field] !== undefined)
        throw new InvalidError(`${field}: a GitLab integration authenticates with a token only`);
    }
  }
  const auth = patch.auth ?? row.auth;
  const switching = auth !== row.auth;
  const webhookSecret = patch.webhookSecret === undefined ? row.webhook_secret : patch.webhookSecret;
  const baseUrl = patch.baseUrl === undefined ? row.base_url : patch.baseUrl;
  let merged: CreateGitIntegrationInput;
  if (auth === 'app') {
    if (patch.token !== undefined)
      throw new InvalidError('token: a GitHub App integration has no token; send auth: "token" to switch');
    // Switching from a token to an App needs the App's id and key in the same request.
    const appId = patch.appId ?? (switching ? undefined : row.app_id);
    const privateKey = patch.privateKey ?? (switching ? undefined : row.private_key);
    if (!appId) throw new InvalidError('appId: required when switching to auth "app"');
    if (!privateKey) throw new InvalidError('privateKey: required when switching to auth "app"');
    merged = {
      provider: 'github',
      auth: 'app',
      appId,
      privateKey,
      ...(webhookSecret !== null && { webhookSecret }),
      ...(baseUrl !== null && { baseUrl }),
    };
  } else {
    if (patch.appId !== undefined || patch.privateKey !== undefined) {
      throw new InvalidError(
        `${patch.appId !== undefined ? 'appId' : 'privateKey'}: a token integration has no App; send auth: "app" to switch`,
      );
    }
    const token = patch.token ?? (switching ? undefined : row.token);
    if (!token) throw new InvalidError('token: required when switching to auth "token"');
    const rest = { token, ...(webhookSecret !== null && { webhookSecret }), ...(baseUrl !== null && { baseUrl }) };
    merged =
      row.provider === 'gitlab' ? { provider: 'gitlab', ...rest } : { provider: 'github', auth: 'token', ...rest };
  }
  const updated = await updateRow(db, row.id, valuesOf(merged));
  await auditIntegration(db, projectId, actor, 'git_integration.updated', row, patch);
  return toGitIntegrationView(updated);
}

export async function deleteGitIntegration(
  { db }: ServiceContext,
  projectId: string,
  shortId: string,
  actor: AuditActor = systemActor,
): Promise<void> {
  const row = await requireRow(db, projectId, shortId);
  await deleteRow(db, row.id);
  await auditIntegration(db, projectId, actor, 'git_integration.deleted', row);
}

/**
 * Records what befell an integration, with its provider and, for a create or an update, the names of the fields sent:
 * never their values, as a token or a key is a secret.
 */
async function auditIntegration(
  db: DB,
  projectId: string,
  actor: AuditActor,
  kind: 'git_integration.created' | 'git_integration.updated' | 'git_integration.deleted',
  row: { short_id: string; provider: string },
  sent?: object,
): Promise<void> {
  await recordAudit(
    { db },
    {
      projectId,
      kind,
      actor,
      subject: row.short_id,
      details: { provider: row.provider, ...(sent && { fields: Object.keys(sent) }) },
    },
  );
}
