import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { ConfigRow } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { projectViews, updateProjectRow } from './project-rows.js';
import { openSecret, sealSecret } from '../secrets.js';

export interface ConfigView {
  shortId: string;
  name: string;
  /** The value of a plain config; always null for a secret, whose value is write-only. */
  value: string | null;
  isSecret: boolean;
  type: 'plain' | 'totp';
  hasValue: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The one place a config row becomes an API shape, so a secret's value cannot leak through another path. */
export function toConfigView(row: ConfigRow): ConfigView {
  return {
    shortId: row.short_id,
    name: row.name,
    value: row.is_secret ? null : row.value,
    isSecret: row.is_secret,
    type: row.type,
    hasValue: row.value.length > 0,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const views = projectViews('configs', toConfigView, 'name');

/** The project's configs, by name. */
export const listConfigs = views.list;
export const getConfig = views.get;

export async function configNameTaken(db: DB, projectId: string, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('configs').select('id').where('project_id', '=', projectId).where('name', '=', name);
  if (exceptId) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** True for the unique (project, name) violation, the backstop when two requests race for one name. */
export function isConfigNameConflict(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === 'configs_project_name');
}

export async function createConfig(
  db: DB,
  projectId: string,
  input: { name: string; value: string; isSecret: boolean; type?: 'plain' | 'totp' },
): Promise<ConfigView> {
  const shortId = newShortId('config');
  await db
    .insertInto('configs')
    .values({
      id: newId(),
      short_id: shortId,
      project_id: projectId,
      name: input.name,
      value: isSecretConfig(input.isSecret, input.type) ? await sealSecret(db, input.value) : input.value,
      is_secret: input.isSecret,
      type: input.type ?? 'plain',
    })
    .execute();
  const { id: _id, ...view } = (await getConfig(db, projectId, shortId))!;
  return view;
}

/** A secret config (and a TOTP seed, always secret) is sealed at rest; a plain one is stored as it is. */
const isSecretConfig = (isSecret: boolean, type: 'plain' | 'totp' | undefined) => isSecret || type === 'totp';

export async function updateConfig(
  db: DB,
  id: string,
  patch: { name?: string; value?: string; isSecret?: boolean; type?: 'plain' | 'totp' },
): Promise<void> {
  let value = patch.value;
  if (patch.value !== undefined || patch.isSecret !== undefined || patch.type !== undefined) {
    // The stored form follows what the config is after the change: a value made secret is sealed, one made plain opened.
    const row = await db
      .selectFrom('configs')
      .select(['value', 'is_secret', 'type'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const plain = patch.value ?? (await openSecret(db, row.value));
    value = isSecretConfig(patch.isSecret ?? row.is_secret, patch.type ?? row.type)
      ? await sealSecret(db, plain)
      : plain;
  }
  const { name, isSecret, type } = patch;
  await updateProjectRow(db, 'configs', id, { name, value, is_secret: isSecret, type }, { touch: true });
}

/** Test cases keep config ids in an array without a foreign key: drop the id there too, in the same transaction. */
export async function deleteConfig(db: DB, config: { id: string; projectId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('test_cases')
      .set({ config_ids: sql<string[]>`array_remove(config_ids, ${config.id}::uuid)` })
      .where('project_id', '=', config.projectId)
      .where(sql<boolean>`${config.id}::uuid = any(config_ids)`)
      .execute();
    await trx.deleteFrom('configs').where('id', '=', config.id).execute();
  });
}
