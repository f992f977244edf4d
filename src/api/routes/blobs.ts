import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import type { OpenApiApp } from '../openapi.js';
import { isBlobTooLarge, type SignedBlobStore, type SignedMethod } from '../../services/blobs.js';

/** Builds and recordings can be large, but not unbounded: a runaway upload must not fill the disk. */
export const MAX_BLOB_BYTES = 512 * 1024 * 1024;

const PREFIX = '/blobs/';

/**
 * The URLs the filesystem blob store presigns, standing in for S3 in `proctor dev`. The signature in
 * the query string is the authorisation, so these routes sit outside /v1 and its Bearer token.
 */
export function registerBlobRoutes(app: OpenApiApp, store: SignedBlobStore): void {
  app.get(`${PREFIX}*`, async (c) => {
    const key = authorisedKey(c, store, 'GET');
    if (key instanceof Response) return key;
    // Hono answers HEAD with the GET handler and drops the body: opening the file would only leak it.
    if (c.req.method === 'HEAD') {
      const info = await store.stat(key);
      return info ? c.body(null, 200, octetHeaders(info.size)) : notFound(c, key);
    }
    const object = await store.openRead(key);
    return object ? c.body(object.stream, 200, octetHeaders(object.size)) : notFound(c, key);
  });

  app.put(`${PREFIX}*`, async (c) => {
    const key = authorisedKey(c, store, 'PUT');
    if (key instanceof Response) return key;
    const declared = c.req.header('content-length');
    // A URL signed for an exact size takes that many bytes and no other number, as an S3 URL with a signed
    // Content-Length does: the length must be declared, and the body cannot outgrow it.
    const signedSize = c.req.query('size');
    if (signedSize !== undefined && declared !== signedSize) {
      return c.json(
        {
          message: `This PUT URL is signed for exactly ${signedSize} bytes; the request declares ${declared ?? 'no'} Content-Length`,
        },
        403,
      );
    }
    // A URL may carry a signed cap of its own (a 4 GiB build); otherwise the general one applies.
    const signedMax = c.req.query('max');
    const maxBytes =
      signedSize !== undefined ? Number(signedSize) : signedMax === undefined ? MAX_BLOB_BYTES : Number(signedMax);
    if (declared !== undefined && Number(declared) > maxBytes) return tooLarge(c, maxBytes);
    const body = c.req.raw.body;
    if (!body) {
      await store.put(key, new Uint8Array());
      return c.json({ key, size: 0 }, 200);
    }
    try {
      const size = await store.putStream(key, body, maxBytes);
      return c.json({ key, size }, 200);
    } catch (err) {
      if (isBlobTooLarge(err)) return tooLarge(c, maxBytes);
      throw err;
    }
  });
}

// The key is taken from the path as hono decoded it; the signature covers it, so any change is refused.
function authorisedKey(c: Context<AppEnv>, store: SignedBlobStore, method: SignedMethod): string | Response {
  const key = c.req.path.startsWith(PREFIX) ? c.req.path.slice(PREFIX.length) : '';
  if (
    !store.verifySignedUrl(method, key, c.req.query('expires'), c.req.query('signature'), {
      maxBytes: c.req.query('max'),
      size: c.req.query('size'),
    })
  ) {
    return c.json(
      { message: `This ${method} URL is invalid or has expired; request a new presigned URL from the API` },
      403,
    );
  }
  return key;
}

const octetHeaders = (size: number) => ({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });

function notFound(c: Context<AppEnv>, key: string): Response {
  return c.json({ message: `Object ${key} not found` }, 404);
}

function tooLarge(c: Context<AppEnv>, maxBytes: number): Response {
  return c.json(
    { message: `Object exceeds the limit of ${maxBytes} bytes (${(maxBytes / 1024 / 1024).toFixed(1)} MiB)` },
    413,
  );
}
