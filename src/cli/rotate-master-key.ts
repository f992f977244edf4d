// `proctor admin rotate-master-key`: the data keys are re-wrapped under a new master key in one transaction; no
// sealed secret is touched. The new key comes from PROCTOR_NEW_MASTER_KEY, or is generated.
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import type { DB } from '../db/database.js';
import { parseMasterKey } from '../db/envelope.js';
import { rewrapDataKeys } from '../db/queries/stored-secrets.js';
import { loadMasterKey, masterKeyFile, resetKeyring } from '../db/secrets.js';

export async function rotateMasterKey(
  db: DB,
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const current = loadMasterKey(env);
  const given = env.PROCTOR_NEW_MASTER_KEY;
  const next = given ? parseMasterKey(given) : randomBytes(32);
  if (next.equals(current)) throw new Error('PROCTOR_NEW_MASTER_KEY is the current master key');
  if (env.PROCTOR_MASTER_KEY) {
    const count = await rewrapDataKeys(db, current, next);
    resetKeyring();
    out(`re-wrapped ${count} data key(s).`);
    out(
      given
        ? 'Set PROCTOR_MASTER_KEY to the value of PROCTOR_NEW_MASTER_KEY on every process now.'
        : `Set PROCTOR_MASTER_KEY=${next.toString('base64')} on every process now.`,
    );
    return;
  }
  // The dev key file: the new key is on disk before the database needs it, and replaces the old one after.
  const file = masterKeyFile(env.PROCTOR_DATA_DIR || '.proctor');
  writeFileSync(`${file}.new`, `${next.toString('base64')}\n`, { mode: 0o600 });
  const count = await rewrapDataKeys(db, current, next);
  renameSync(`${file}.new`, file);
  resetKeyring();
  out(`re-wrapped ${count} data key(s); the new master key is in ${file}`);
}
