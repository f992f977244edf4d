// A blob store that waits out an outage: S3 or MinIO restarting, or the network to it dropping, is ridden out with
// growing pauses for up to `waitMs` before an operation fails. The workers' activities use it, so a storage blip
// while a test uploads its trace does not turn that test into an ERROR (a person would have to run it again); an
// API request does not, since a client is better served by a quick 503 than by a request that hangs.
import { S3Error } from 'minio';
import type { BlobStore } from './blob-store.js';
import { rideOut } from '../timeouts.js';

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const serverCodes = new Set([
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'RequestTimeout',
  'XMinioServerNotInitialized',
]);

/** Whether `err` says the store could not be reached or was not ready, as opposed to refusing the operation. */
export function isStorageOutage(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && networkCodes.has(code)) return true;
    if (e instanceof S3Error && typeof code === 'string' && serverCodes.has(code)) return true;
    if (/socket hang up|other side closed/i.test(e.message)) return true;
  }
  return false;
}

export function outlastingOutages(store: BlobStore, waitMs = 120_000): BlobStore {
  const ride = <T>(call: () => Promise<T>): Promise<T> =>
    rideOut(call, { waitMs, passing: isStorageOutage, firstPauseMs: 500, maxPauseMs: 10_000 });
  return {
    kind: store.kind,
    ensureReady: () => ride(() => store.ensureReady()),
    put: (key, body, contentType) => ride(() => store.put(key, body, contentType)),
    get: (key) => ride(() => store.get(key)),
    stat: (key) => ride(() => store.stat(key)),
    openRange: (key, start, end) => ride(() => store.openRange(key, start, end)),
    delete: (key) => ride(() => store.delete(key)),
    list: (prefix) => store.list(prefix),
    presignPut: (key, expires, options) => store.presignPut(key, expires, options),
    presignGet: (key, expires) => store.presignGet(key, expires),
  };
}
