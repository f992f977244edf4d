import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerBlobRoutes } from '../../src/api/routes/blobs.js';
import { newRouter } from '../../src/api/openapi.js';
import { BlobNotFoundError, type BlobStore } from '../../src/storage/blob-store.js';
import { BlobTooLargeError, createFsBlobStore, type FsBlobStore } from '../../src/storage/fs.js';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { minioBucket, startInstalledMinio } from '../support/minio.js';
import { freePort } from '../support/net.js';

interface Harness {
  store: BlobStore;
  stop(): Promise<void>;
}

// The fs store is only useful behind the API's /blobs routes, so it is tested through a real HTTP server.
async function fsHarness(): Promise<Harness & { store: FsBlobStore; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  const port = await freePort();
  const store = createFsBlobStore({
    dir,
    secret: randomBytes(32).toString('hex'),
    publicUrl: `http://127.0.0.1:${port}/`,
  });
  const app = newRouter();
  registerBlobRoutes(app, store);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  return {
    store,
    dir,
    async stop() {
      // fetch keeps connections alive; without this close() waits for them to time out.
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function s3Harness(): Promise<Harness> {
  const minio = await startInstalledMinio();
  const store = createS3BlobStore(minioBucket(minio, 'proctor-blobs'));
  return { store, stop: () => minio.stop() };
}

const harnesses = { fs: fsHarness, s3: s3Harness };

const key = (name: string) => `runs/${randomUUID()}/${name}`;
const bytes = (n: number) => new Uint8Array(randomBytes(n));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fetchBytes(url: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

function withPath(url: string, from: string, to: string): string {
  const u = new URL(url);
  u.pathname = u.pathname.replace(from, to);
  return u.toString();
}

function withQuery(url: string, name: string, change: (v: string) => string): string {
  const u = new URL(url);
  const value = u.searchParams.get(name);
  if (value === null) throw new Error(`no ${name} in ${url}`);
  u.searchParams.set(name, change(value));
  return u.toString();
}

const flipLastHex = (v: string) => v.slice(0, -1) + (v.endsWith('0') ? '1' : '0');

describe.each(['fs', 's3'] as const)('%s blob store', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await harnesses[kind]();
    await h.store.ensureReady();
    await h.store.ensureReady(); // idempotent
  });

  afterAll(async () => {
    await h?.stop();
  });

  it('reports its kind', () => {
    expect(h.store.kind).toBe(kind);
  });

  it('serves by presigned GET what was uploaded by presigned PUT', async () => {
    const k = key('build.apk');
    const data = bytes(300 * 1024);
    const put = await fetch(await h.store.presignPut(k, 60), {
      method: 'PUT',
      body: data,
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(put.status).toBe(200);
    if (kind === 'fs') expect(await put.json()).toEqual({ key: k, size: data.byteLength });

    const got = await fetchBytes(await h.store.presignGet(k, 60));
    expect(got.status).toBe(200);
    expect(got.body.equals(Buffer.from(data))).toBe(true);
    expect(got.headers.get('content-length')).toBe(String(data.byteLength));
    if (kind === 'fs') {
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      const head = await fetch(await h.store.presignGet(k, 60), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(data.byteLength));
    }
    expect(await h.store.stat(k)).toEqual({ size: data.byteLength });
  });

  it('reads a byte range of an object, and refuses one of a missing object', async () => {
    const k = key('range.bin');
    const data = bytes(10_000);
    await h.store.put(k, data);
    const read = async (start: number, end: number) => {
      const chunks: Buffer[] = [];
      for await (const chunk of await h.store.openRange(k, start, end)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    expect((await read(9_000, 10_000)).equals(Buffer.from(data.subarray(9_000)))).toBe(true);
    expect((await read(0, 1)).equals(Buffer.from(data.subarray(0, 1)))).toBe(true);
    expect((await read(5, 5)).length).toBe(0);
    await expect(h.store.openRange(key('absent.bin'), 0, 10)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('accepts an empty upload', async () => {
    const k = key('empty.txt');
    const put = await fetch(await h.store.presignPut(k, 60), { method: 'PUT', body: new Uint8Array() });
    expect(put.status).toBe(200);
    expect(await h.store.stat(k)).toEqual({ size: 0 });
  });

  it('puts, gets, stats, overwrites and deletes through the interface', async () => {
    const k = key('report.json');
    const first = new TextEncoder().encode('{"ok":true}');
    await h.store.put(k, first, 'application/json');
    expect((await h.store.get(k)).equals(Buffer.from(first))).toBe(true);
    expect(await h.store.stat(k)).toEqual({ size: first.byteLength });

    const second = bytes(1000);
    await h.store.put(k, second);
    expect((await h.store.get(k)).equals(Buffer.from(second))).toBe(true);

    await h.store.delete(k);
    expect(await h.store.stat(k)).toBeNull();
    await expect(h.store.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    await h.store.delete(k); // deleting an absent object is not an error
  });

  it('throws BlobNotFoundError for a missing object, and stat says null', async () => {
    const k = key('missing.bin');
    await expect(h.store.get(k)).rejects.toThrow(BlobNotFoundError);
    await expect(h.store.get(k)).rejects.toMatchObject({ key: k });
    expect(await h.store.stat(k)).toBeNull();
  });

  it('answers 404 to a presigned GET of a missing object', async () => {
    const res = await fetch(await h.store.presignGet(key('missing.bin'), 60));
    expect(res.status).toBe(404);
    if (kind === 'fs') expect(await res.json()).toEqual({ message: expect.stringMatching(/not found/) });
  });

  it('refuses keys that climb out of their prefix', async () => {
    for (const bad of ['../etc/passwd', 'runs/../../x', '/abs', 'a//b', 'a/./b', '']) {
      await expect(h.store.put(bad, bytes(1))).rejects.toThrow(/invalid blob key/);
      await expect(h.store.presignGet(bad, 60)).rejects.toThrow(/invalid blob key/);
    }
  });

  it('refuses tampered URLs', async () => {
    const k = key('video.webm');
    const other = key('other.webm');
    await h.store.put(k, bytes(64));
    await h.store.put(other, bytes(64));
    const getUrl = await h.store.presignGet(k, 60);
    const putUrl = await h.store.presignPut(k, 60);
    const signatureParam = kind === 'fs' ? 'signature' : 'X-Amz-Signature';

    const tampered = [
      withQuery(getUrl, signatureParam, flipLastHex),
      withPath(getUrl, k, other), // someone else's object with this object's signature
    ];
    for (const url of tampered) {
      const res = await fetch(url);
      expect(res.status, url).toBe(403);
      if (kind === 'fs')
        expect((await res.json()) as unknown).toEqual({ message: expect.stringMatching(/invalid or has expired/) });
      else await res.body?.cancel();
    }

    // A GET URL does not authorise a PUT, and a PUT URL with a changed key writes nothing.
    const wrongMethod = await fetch(getUrl, { method: 'PUT', body: bytes(8) });
    expect(wrongMethod.status).toBe(403);
    await wrongMethod.body?.cancel();
    const movedPut = await fetch(withPath(putUrl, k, `${k}.evil`), { method: 'PUT', body: bytes(8) });
    expect(movedPut.status).toBe(403);
    await movedPut.body?.cancel();
    expect(await h.store.stat(`${k}.evil`)).toBeNull();
    expect(await h.store.stat(k)).toEqual({ size: 64 });
  });

  it('refuses URLs after they expire', async () => {
    const k = key('trace.zip');
    await h.store.put(k, bytes(32));
    const getUrl = await h.store.presignGet(k, 1);
    const putUrl = await h.store.presignPut(key('late.zip'), 1);
    await sleep(2_100);

    const get = await fetch(getUrl);
    expect(get.status).toBe(403);
    if (kind === 'fs') expect(await get.json()).toEqual({ message: expect.stringMatching(/invalid or has expired/) });
    else await get.body?.cancel();
    const put = await fetch(putUrl, { method: 'PUT', body: bytes(8) });
    expect(put.status).toBe(403);
    await put.body?.cancel();
  });
});

describe('fs blob store internals', () => {
  let h: Awaited<ReturnType<typeof fsHarness>>;

  beforeAll(async () => {
    h = await fsHarness();
    await h.store.ensureReady();
  });

  afterAll(async () => {
    await h?.stop();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  const parts = (url: string) => {
    const u = new URL(url);
    return {
      key: u.pathname.replace(/^\/blobs\//, ''),
      expires: u.searchParams.get('expires') ?? undefined,
      signature: u.searchParams.get('signature') ?? undefined,
    };
  };

  it('signs URLs under publicUrl/blobs with an expiry and hex HMAC', async () => {
    const k = key('a.bin');
    const url = new URL(await h.store.presignPut(k, 900));
    expect(url.pathname).toBe(`/blobs/${k}`);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(899);
    expect(expires - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(900);
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies only the method, key and expiry it signed', async () => {
    const k = key('a.bin');
    const { expires, signature } = parts(await h.store.presignGet(k, 60));
    expect(h.store.verifySignedUrl('GET', k, expires, signature)).toBe(true);
    expect(h.store.verifySignedUrl('PUT', k, expires, signature)).toBe(false);
    expect(h.store.verifySignedUrl('GET', `${k}x`, expires, signature)).toBe(false);
    expect(h.store.verifySignedUrl('GET', k, String(Number(expires) + 1), signature)).toBe(false);
    expect(h.store.verifySignedUrl('GET', k, expires, flipLastHex(signature!))).toBe(false);
    expect(h.store.verifySignedUrl('GET', k, expires, signature!.slice(0, 10))).toBe(false);
    expect(h.store.verifySignedUrl('GET', k, undefined, signature)).toBe(false);
    expect(h.store.verifySignedUrl('GET', k, expires, undefined)).toBe(false);
    expect(h.store.verifySignedUrl('GET', '../x', expires, signature)).toBe(false);
  });

  it('stops verifying once the expiry has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.now();
    const k = key('a.bin');
    const { expires, signature } = parts(await h.store.presignGet(k, 60));
    vi.setSystemTime(now + 59_000);
    expect(h.store.verifySignedUrl('GET', k, expires, signature)).toBe(true);
    vi.setSystemTime(now + 61_000);
    expect(h.store.verifySignedUrl('GET', k, expires, signature)).toBe(false);
  });

  it('enforces the size cap signed into a PUT URL, which the client cannot raise', async () => {
    const k = key('capped.bin');
    const url = await h.store.presignPut(k, 60, { maxBytes: 1000 });
    expect(new URL(url).searchParams.get('max')).toBe('1000');
    expect((await fetch(url, { method: 'PUT', body: bytes(1001) })).status).toBe(413);
    expect(await h.store.stat(k)).toBeNull();
    expect(
      (
        await fetch(
          withQuery(url, 'max', () => '100000'),
          { method: 'PUT', body: bytes(1001) },
        )
      ).status,
    ).toBe(403);
    const dropped = new URL(url);
    dropped.searchParams.delete('max');
    expect((await fetch(dropped, { method: 'PUT', body: bytes(1001) })).status).toBe(403);
    expect((await fetch(url, { method: 'PUT', body: bytes(1000) })).status).toBe(200);
    expect(await h.store.stat(k)).toEqual({ size: 1000 });
  });

  it('does not trust URLs signed with another secret', async () => {
    const k = key('a.bin');
    const other = createFsBlobStore({ dir: h.dir, secret: randomBytes(32).toString('hex'), publicUrl: 'http://x' });
    const { expires, signature } = parts(await other.presignGet(k, 60));
    expect(h.store.verifySignedUrl('GET', k, expires, signature)).toBe(false);
  });

  it('rejects an upload past the size limit and leaves nothing behind', async () => {
    const k = key('big.bin');
    const body = new Blob([bytes(64 * 1024), bytes(64 * 1024)]).stream();
    await expect(h.store.putStream(k, body, 100 * 1024)).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await h.store.stat(k)).toBeNull();
    expect(readdirSync(join(h.dir, '.tmp'))).toEqual([]);
  });

  it('streams an upload to disk and reports its size', async () => {
    const k = key('stream.bin');
    const data = bytes(200 * 1024);
    expect(await h.store.putStream(k, new Blob([data]).stream(), 1024 * 1024)).toBe(data.byteLength);
    expect((await h.store.get(k)).equals(Buffer.from(data))).toBe(true);
    expect(readdirSync(join(h.dir, '.tmp'))).toEqual([]);
  });

  it('refuses a short secret', () => {
    expect(() => createFsBlobStore({ dir: h.dir, secret: 'short', publicUrl: 'http://x' })).toThrow(/16 characters/);
  });
});
