import type { Readable } from 'node:stream';

/** Where artifacts and builds live: S3/MinIO in production, a directory for `proctor dev`. */
export interface BlobStore {
  readonly kind: 's3' | 'fs';
  /** Creates the bucket or directory if needed; idempotent. */
  ensureReady(): Promise<void>;
  put(key: string, body: Uint8Array, contentType?: string): Promise<void>;
  /** Throws BlobNotFoundError when absent. */
  get(key: string): Promise<Buffer>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Bytes [start, end) of an object as a stream, so an archive's index can be read without the rest. */
  openRange(key: string, start: number, end: number): Promise<Readable>;
  delete(key: string): Promise<void>;
  /** Every object under a folder (`prefix` ends with `/`), in no set order, for sweeps of what nothing deletes otherwise. */
  list(prefix: string): AsyncIterable<ListedBlob>;
  /**
   * A URL that accepts one HTTP PUT of the object's bytes until it expires. With `size`, the store itself
   * refuses a PUT of any other Content-Length (S3/MinIO: the length is a signed header). `maxBytes` is
   * enforced by the fs store's route; an S3 URL without `size` cannot bound the length, so callers check after.
   */
  presignPut(key: string, expiresInSeconds: number, options?: { maxBytes?: number; size?: number }): Promise<string>;
  /** A URL that serves the object by HTTP GET until it expires. */
  presignGet(key: string, expiresInSeconds: number): Promise<string>;
}

export interface ListedBlob {
  key: string;
  lastModified: Date;
}

/** A listing prefix is a folder: a valid key followed by `/`. */
export function assertValidPrefix(prefix: string): void {
  if (!prefix.endsWith('/')) throw new Error(`invalid blob prefix (must end with /): ${JSON.stringify(prefix)}`);
  assertValidKey(prefix.slice(0, -1));
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

// Keys come from our own code, but a key that climbs out of its prefix must never reach the filesystem or S3.
export function assertValidKey(key: string): void {
  if (
    !/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,511}$/.test(key) ||
    key.split('/').some((part) => part === '..' || part === '.' || part === '')
  ) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}
