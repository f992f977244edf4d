import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { assertValidKey, assertValidPrefix, BlobNotFoundError, type BlobStore } from './blob-store.js';
import { listFiles } from './fs-list.js';
import { readBounded } from '../streams.js';

export type SignedMethod = 'GET' | 'PUT';

/** The size rules a PUT URL carries in its query (`max`, `size`), as the query has them. */
export interface SignedLimits {
  maxBytes?: string;
  size?: string;
}

/**
 * The `proctor dev` store: objects are files under one directory, and the API itself serves the
 * presigned URLs (see api/routes/blobs.ts), so a laptop needs no S3.
 */
export interface FsBlobStore extends BlobStore {
  readonly kind: 'fs';
  /** True only for an unexpired URL signed by this store for this method, key and (when signed) size cap and exact size. */
  verifySignedUrl(
    method: SignedMethod,
    key: string,
    expires: string | undefined,
    signature: string | undefined,
    limits?: SignedLimits,
  ): boolean;
  /** Streams an upload to disk so a large build never sits in memory; returns the size written. */
  putStream(key: string, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<number>;
  /** The object as a stream with its size, or null when absent. */
  openRead(key: string): Promise<{ size: number; stream: ReadableStream<Uint8Array> } | null>;
}

export interface FsBlobStoreOptions {
  dir: string;
  secret: string;
  /** Base URL of the API that serves `/blobs/*`, without a trailing slash. */
  publicUrl: string;
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

// Keys never start with a dot, so this directory cannot collide with an object.
const TMP_DIR = '.tmp';

export function createFsBlobStore({ dir, secret, publicUrl }: FsBlobStoreOptions): FsBlobStore {
  // An empty or short key would make the URLs guessable; the config requires 16 characters too.
  if (secret.length < 16) throw new Error('the filesystem blob store needs a secret of at least 16 characters');
  const root = resolve(dir);
  const base = publicUrl.replace(/\/+$/, '');

  const pathOf = (key: string): string => {
    assertValidKey(key);
    return join(root, ...key.split('/'));
  };

  // The cap and the exact size are part of the signed text, so a client cannot change them by editing the query string.
  const sign = (method: SignedMethod, key: string, expires: string, limits: SignedLimits = {}): string =>
    createHmac('sha256', secret)
      .update(
        `${method}\n${key}\n${expires}${limits.maxBytes === undefined ? '' : `\n${limits.maxBytes}`}${limits.size === undefined ? '' : `\nsize ${limits.size}`}`,
      )
      .digest('hex');

  const presign = (
    method: SignedMethod,
    key: string,
    expiresInSeconds: number,
    options: { maxBytes?: number; size?: number } = {},
  ): string => {
    assertValidKey(key);
    const expires = String(Math.floor(Date.now() / 1000) + Math.max(1, Math.floor(expiresInSeconds)));
    const path = key.split('/').map(encodeURIComponent).join('/');
    const limits: SignedLimits = {
      maxBytes: options.maxBytes === undefined ? undefined : String(Math.floor(options.maxBytes)),
      size: options.size === undefined ? undefined : String(Math.floor(options.size)),
    };
    const query = [
      `expires=${expires}`,
      ...(limits.maxBytes === undefined ? [] : [`max=${limits.maxBytes}`]),
      ...(limits.size === undefined ? [] : [`size=${limits.size}`]),
    ];
    return `${base}/blobs/${path}?${query.join('&')}&signature=${sign(method, key, expires, limits)}`;
  };

  // Rename is atomic within one filesystem: a reader sees the old object or the new one, never half of it.
  const writeAtomically = async (key: string, write: (file: FileHandle) => Promise<void>): Promise<void> => {
    const target = pathOf(key);
    const tmp = join(root, TMP_DIR, `${randomUUID()}.part`);
    await mkdir(join(root, TMP_DIR), { recursive: true });
    const file = await open(tmp, 'w');
    try {
      await write(file);
      await file.close();
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
    } catch (err) {
      await file.close().catch(() => {});
      await rm(tmp, { force: true });
      throw err;
    }
  };

  return {
    kind: 'fs',

    async ensureReady() {
      await mkdir(join(root, TMP_DIR), { recursive: true });
    },

    async put(key, body) {
      await writeAtomically(key, async (file) => {
        await file.writeFile(body);
      });
    },

    async putStream(key, body, maxBytes) {
      let size = 0;
      await writeAtomically(key, async (file) => {
        size = await readBounded(
          body,
          maxBytes,
          (chunk) => file.write(chunk),
          () => new BlobTooLargeError(maxBytes),
        );
      });
      return size;
    },

    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (err) {
        if (isMissing(err)) throw new BlobNotFoundError(key);
        throw err;
      }
    },

    async openRead(key) {
      // Size and bytes come from one open file, so a concurrent overwrite cannot make them disagree.
      const file = await orNullIfMissing(open(pathOf(key), 'r'));
      if (!file) return null;
      try {
        const info = await file.stat();
        if (!info.isFile()) {
          await file.close();
          return null;
        }
        return { size: info.size, stream: Readable.toWeb(file.createReadStream()) as ReadableStream<Uint8Array> };
      } catch (err) {
        await file.close();
        throw err;
      }
    },

    async openRange(key, start, end) {
      const file = await orNullIfMissing(open(pathOf(key), 'r'));
      if (!file) throw new BlobNotFoundError(key);
      if (end <= start) {
        await file.close();
        return Readable.from([]);
      }
      // createReadStream's `end` is inclusive.
      return file.createReadStream({ start, end: end - 1 });
    },

    async stat(key) {
      const info = await orNullIfMissing(stat(pathOf(key)));
      return info?.isFile() ? { size: info.size } : null;
    },

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    list(prefix) {
      assertValidPrefix(prefix);
      return listFiles(root, prefix);
    },

    async presignPut(key, expiresInSeconds, options) {
      return presign('PUT', key, expiresInSeconds, options);
    },

    async presignGet(key, expiresInSeconds) {
      return presign('GET', key, expiresInSeconds);
    },

    verifySignedUrl(method, key, expires, signature, limits = {}) {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/i.test(signature)) return false;
      if ([limits.maxBytes, limits.size].some((n) => n !== undefined && !/^\d{1,16}$/.test(n))) return false;
      try {
        assertValidKey(key);
      } catch {
        return false;
      }
      if (Number(expires) < Math.floor(Date.now() / 1000)) return false;
      return timingSafeEqual(Buffer.from(sign(method, key, expires, limits), 'hex'), Buffer.from(signature, 'hex'));
    },
  };
}

// A key whose parent is a file (ENOTDIR) or which names a directory (EISDIR) is as absent as ENOENT.
function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

async function orNullIfMissing<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}
