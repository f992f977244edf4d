// Secrets at rest: the query modules seal a secret before it is written and open it after it is read, so a database
// file, dump or backup holds no credential in clear. The master key comes from PROCTOR_MASTER_KEY, or (dev) from
// `<data dir>/master.key`, generated once with mode 0600.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../ids.js';
import type { DB } from './database.js';
import {
  dataKeyIdOf,
  isSealed,
  masterKeyId,
  newDataKey,
  open,
  parseMasterKey,
  seal,
  SecretUnreadableError,
  unwrapDataKey,
  wrapDataKey,
} from './envelope.js';
import { findActiveDataKey, findDataKey, insertDataKey } from './queries/data-keys.js';

export { isSealed, SecretUnreadableError } from './envelope.js';

/** Where the dev master key lives when PROCTOR_MASTER_KEY is not set. */
export const masterKeyFile = (dataDir: string) => join(dataDir, 'master.key');

/** The master key: PROCTOR_MASTER_KEY, else the data directory's key file, created on first use. */
export function loadMasterKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.PROCTOR_MASTER_KEY) return parseMasterKey(env.PROCTOR_MASTER_KEY);
  const file = masterKeyFile(env.PROCTOR_DATA_DIR || '.proctor');
  if (!existsSync(file)) {
    mkdirSync(join(file, '..'), { recursive: true });
    // `wx`: two processes starting together do not both write a key; the loser reads the winner's.
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(file, 0o600);
  return parseMasterKey(readFileSync(file, 'utf8'));
}

/** Seals and opens secrets with data keys wrapped by one master key; data keys are cached unwrapped in memory. */
export class Keyring {
  readonly masterKeyId: string;
  private readonly keys = new Map<string, Buffer>();
  /**
   * The data key new secrets are sealed with, per database: a process that holds two (the test suite's shared
   * processes do) must not seal one database's secret with a data key stored in the other.
   */
  private readonly active = new WeakMap<DB, Promise<{ id: string; key: Buffer }>>();

  constructor(private readonly masterKey: Buffer) {
    this.masterKeyId = masterKeyId(masterKey);
  }

  /** The stored form of `plain`. An empty value is no secret and stays empty (a blank password means none). */
  async seal(db: DB, plain: string): Promise<string> {
    if (plain === '') return plain;
    const active = this.activeKey(db);
    const { id, key } = await active;
    return seal(id, key, plain);
  }

  /** The value of a stored secret; a value stored before encryption (not sealed) is returned as it is. */
  async open(db: DB, stored: string): Promise<string> {
    if (!isSealed(stored)) return stored;
    return open(await this.dataKey(db, dataKeyIdOf(stored)), stored);
  }

  private activeKey(db: DB): Promise<{ id: string; key: Buffer }> {
    const known = this.active.get(db);
    if (known) return known;
    const active = (async () => {
      const row = await findActiveDataKey(db, this.masterKeyId);
      if (row) return { id: row.id, key: this.remember(row.id, unwrapDataKey(this.masterKey, row.id, row.wrapped)) };
      const id = newId();
      const key = newDataKey();
      await insertDataKey(db, { id, wrapped: wrapDataKey(this.masterKey, id, key), masterKeyId: this.masterKeyId });
      return { id, key: this.remember(id, key) };
    })().catch((err: unknown) => {
      this.active.delete(db);
      throw err;
    });
    this.active.set(db, active);
    return active;
  }

  private async dataKey(db: DB, id: string): Promise<Buffer> {
    const known = this.keys.get(id);
    if (known) return known;
    const row = await findDataKey(db, id);
    if (!row) throw new SecretUnreadableError(`a stored secret names data key ${id}, which the database does not have`);
    if (row.master_key_id !== this.masterKeyId) {
      throw new SecretUnreadableError(
        `data key ${id} is wrapped by master key ${row.master_key_id}, but PROCTOR_MASTER_KEY is ${this.masterKeyId}: set the key the secrets were stored with`,
      );
    }
    return this.remember(id, unwrapDataKey(this.masterKey, id, row.wrapped));
  }

  private remember(id: string, key: Buffer): Buffer {
    this.keys.set(id, key);
    return key;
  }
}

let current: Keyring | undefined;

/** The process's keyring, from the environment on first use. */
export const keyring = (): Keyring => (current ??= new Keyring(loadMasterKey()));

/** After a rotation, or in a test that sets another key: the next use reads the key again. */
export function resetKeyring(): void {
  current = undefined;
}

export const sealSecret = (db: DB, plain: string): Promise<string> => keyring().seal(db, plain);
export const openSecret = (db: DB, stored: string): Promise<string> => keyring().open(db, stored);
export const sealNullable = async (db: DB, plain: string | null): Promise<string | null> =>
  plain === null ? null : sealSecret(db, plain);
export const openNullable = async (db: DB, stored: string | null): Promise<string | null> =>
  stored === null ? null : openSecret(db, stored);
