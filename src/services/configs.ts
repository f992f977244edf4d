// Configs as business operations: names unique in a project (checked first, the unique constraint the backstop
// when two requests race), and a secret's value never revealed, not even by turning it into a plain config.
import {
  configNameTaken,
  createConfig as insertConfig,
  deleteConfig as deleteConfigRow,
  getConfig,
  isConfigNameConflict,
  listConfigs as selectConfigs,
  updateConfig as updateConfigRow,
  type ConfigView,
} from '../db/queries/configs.js';
import { ConflictError, InvalidError } from '../domain/errors.js';
import { totpRules } from './config-types.js';
import type { ServiceContext } from './context.js';
import { projectResource } from './project-resources.js';

export type { ConfigView };

const nameConflict = (name: string) => new ConflictError(`name: a config named ${name} already exists in this project`);

const resource = projectResource('Config', { list: selectConfigs, get: getConfig });

export const listConfigs = resource.list;
/** The config of the caller's project, or NotFoundError (also when it belongs to another project). */
export const requireConfig = resource.require;

/** Runs a write that may hit the unique name constraint (two requests racing for one name) as a conflict. */
async function withNameConflict<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (name !== undefined && isConfigNameConflict(err)) throw nameConflict(name);
    throw err;
  }
}

export async function createConfig(
  { db }: ServiceContext,
  projectId: string,
  input: { name: string; value: string; isSecret: boolean; type?: 'plain' | 'totp' },
): Promise<ConfigView> {
  input = totpRules(input);
  if (await configNameTaken(db, projectId, input.name)) throw nameConflict(input.name);
  return withNameConflict(input.name, () => insertConfig(db, projectId, input));
}

export async function updateConfig(
  { db }: ServiceContext,
  projectId: string,
  configShortId: string,
  patch: { name?: string; value?: string; isSecret?: boolean; type?: 'plain' | 'totp' },
): Promise<ConfigView & { id: string }> {
  const config = await requireConfig({ db }, projectId, configShortId);
  patch = totpRules(patch, config);
  if (config.isSecret && patch.isSecret === false && patch.value === undefined) {
    throw new InvalidError(
      'value: required when turning a secret config into a plain one, so the secret value is never revealed',
    );
  }
  if (patch.name !== undefined && (await configNameTaken(db, projectId, patch.name, config.id)))
    throw nameConflict(patch.name);
  await withNameConflict(patch.name, () => updateConfigRow(db, config.id, patch));
  return requireConfig({ db }, projectId, config.shortId);
}

export async function deleteConfig({ db }: ServiceContext, projectId: string, configShortId: string): Promise<void> {
  const config = await requireConfig({ db }, projectId, configShortId);
  await deleteConfigRow(db, { id: config.id, projectId });
}
