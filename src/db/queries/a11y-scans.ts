import type { DB } from '../database.js';

/** The findings stored for the document, if it was scanned for the project since `since`. */
export async function findA11yScan(db: DB, projectId: string, digest: string, since: Date): Promise<unknown> {
  const row = await db
    .selectFrom('a11y_scans')
    .select('findings')
    .where('project_id', '=', projectId)
    .where('digest', '=', digest)
    .where('scanned_at', '>=', since)
    .executeTakeFirst();
  return row?.findings;
}

/** Stores (or refreshes) a scan, and forgets the project's scans older than `expiredBefore`. */
export async function saveA11yScan(
  db: DB,
  projectId: string,
  digest: string,
  findings: unknown,
  expiredBefore: Date,
): Promise<void> {
  await db
    .insertInto('a11y_scans')
    .values({ project_id: projectId, digest, findings: JSON.stringify(findings), scanned_at: new Date() })
    .onConflict((oc) =>
      oc.columns(['project_id', 'digest']).doUpdateSet({ findings: JSON.stringify(findings), scanned_at: new Date() }),
    )
    .execute();
  await db
    .deleteFrom('a11y_scans')
    .where('project_id', '=', projectId)
    .where('scanned_at', '<', expiredBefore)
    .execute();
}
