// Envelope encryption of secrets at rest: each secret is sealed with AES-256-GCM under a data key; data keys are
// stored wrapped (AES-256-GCM again) under the master key, which never touches the database. Rotating the master key
// re-wraps the data keys and leaves every sealed value as it is.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A sealed value as stored: `enc:v1:<data key id>:<base64 of iv | tag | ciphertext>`. */
const sealedPattern = /^enc:v1:([\w-]{1,64}):([A-Za-z0-9+/]+={0,2})$/;
const prefix = 'enc:v1:';

/**
 * A stored secret that cannot be opened: the master key is missing, wrong, or the stored value was altered. Nothing a
 * retry can fix, so activities fail non-retryable and the API answers a 500 that names the cause (`explanation`).
 */
export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';

  /** What an operator reads: the cause first, then what to check. */
  get explanation(): string {
    return `Stored secrets cannot be read (${this.message}): PROCTOR_MASTER_KEY is missing or is not the master key they were stored with`;
  }
}

export const isSealed = (stored: string): boolean => stored.startsWith(prefix);

/** The data key id a sealed value names. */
export function dataKeyIdOf(stored: string): string {
  const m = sealedPattern.exec(stored);
  if (!m) throw new SecretUnreadableError('a stored secret is not in the sealed format');
  return m[1]!;
}

function encrypt(key: Buffer, plain: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function decrypt(key: Buffer, packed: string, aad: string): Buffer {
  const bytes = Buffer.from(packed, 'base64');
  if (bytes.length < 28) throw new SecretUnreadableError('a stored secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(bytes.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
  } catch {
    throw new SecretUnreadableError('a stored secret does not decrypt with its data key (altered, or another key)');
  }
}

/** Seals `plain` under a data key; the key id is bound to the ciphertext, so a value cannot be moved to another key. */
export function seal(dataKeyId: string, dataKey: Buffer, plain: string): string {
  return `${prefix}${dataKeyId}:${encrypt(dataKey, Buffer.from(plain, 'utf8'), dataKeyId)}`;
}

export function open(dataKey: Buffer, stored: string): string {
  const m = sealedPattern.exec(stored);
  if (!m) throw new SecretUnreadableError('a stored secret is not in the sealed format');
  return decrypt(dataKey, m[2]!, m[1]!).toString('utf8');
}

/** A master key's public name: which key wrapped a data key, so a wrong PROCTOR_MASTER_KEY is named, not guessed. */
export const masterKeyId = (masterKey: Buffer): string =>
  createHash('sha256').update(masterKey).digest('hex').slice(0, 16);

export const wrapDataKey = (masterKey: Buffer, dataKeyId: string, dataKey: Buffer): string =>
  encrypt(masterKey, dataKey, `data-key:${dataKeyId}`);

export function unwrapDataKey(masterKey: Buffer, dataKeyId: string, wrapped: string): Buffer {
  return decrypt(masterKey, wrapped, `data-key:${dataKeyId}`);
}

export const newDataKey = (): Buffer => randomBytes(32);

/** A master key from its text form: 64 hex digits or base64 of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32)
    throw new Error('PROCTOR_MASTER_KEY must be 32 bytes: 64 hex digits or base64 (e.g. `openssl rand -base64 32`)');
  return key;
}
