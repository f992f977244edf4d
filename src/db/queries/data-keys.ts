import type { DB } from '../database.js';

/** The newest data key wrapped by this master key: the one new secrets are sealed with. */
export function findActiveDataKey(db: DB, masterKeyId: string) {
  return db
    .selectFrom('data_keys')
    .select(['id', 'wrapped'])
    .where('master_key_id', '=', masterKeyId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export function findDataKey(db: DB, id: string) {
  return db.selectFrom('data_keys').select(['id', 'wrapped', 'master_key_id']).where('id', '=', id).executeTakeFirst();
}

export async function insertDataKey(db: DB, row: { id: string; wrapped: string; masterKeyId: string }): Promise<void> {
  await db
    .insertInto('data_keys')
    .values({ id: row.id, wrapped: row.wrapped, master_key_id: row.masterKeyId })
    .execute();
}

export function listDataKeys(db: DB) {
  return db.selectFrom('data_keys').select(['id', 'wrapped', 'master_key_id']).orderBy('created_at').execute();
}

export async function rewrapDataKey(db: DB, id: string, wrapped: string, masterKeyId: string): Promise<void> {
  await db.updateTable('data_keys').set({ wrapped, master_key_id: masterKeyId }).where('id', '=', id).execute();
}
