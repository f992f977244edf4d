import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { AppDeps } from '../../src/api/context.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { hashToken } from '../../src/ids.js';
import { silentLogger } from '../../src/logger.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { freshDatabase } from '../support/app-context.js';
import { fixtures, zipOf } from '../support/build-fixtures.js';
import { minioBucket, startInstalledMinio } from '../support/minio.js';
import { freePort } from '../support/net.js';
import { inject } from 'vitest';

// Small enough that an "oversize" file is cheap to send, large enough for every fixture.
const MAX_BYTES = 64 * 1024;
// The JSON API's body limit, set below the build cap: a build's bytes never go through the JSON API.
const MAX_JSON_BODY_BYTES = 16 * 1024;

interface BuildApi {
  url: string;
  deps: AppDeps & { config: { PROCTOR_BUILD_UPLOAD_TTL_SECONDS: number } };
  token: string;
  otherToken: string;
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** The real API on a real port over a fresh Postgres database, with the fs store (served by the API) or MinIO. */
async function startBuildApi(store: 'fs' | 's3'): Promise<BuildApi> {
  const db = await freshDatabase('postgres');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  const minio = store === 's3' ? await startInstalledMinio() : undefined;
  const blobs: BlobStore = minio
    ? createS3BlobStore(minioBucket(minio, 'proctor-builds'))
    : createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl: url });
  await blobs.ensureReady();
  const temporal = createTemporalClientProvider({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue: 'unused',
  });
  const deps = {
    db,
    blobs,
    temporal,
    logger: silentLogger,
    config: {
      appUrl: 'https://app.proctor.test',
      publicUrl: url,
      PROCTOR_URL_TTL_SECONDS: 900,
      PROCTOR_RUN_CONCURRENCY: 10,
      PROCTOR_BUILD_MAX_BYTES: MAX_BYTES,
      PROCTOR_BUILD_UPLOAD_TTL_SECONDS: 600,
      PROCTOR_MAX_BODY_BYTES: MAX_JSON_BODY_BYTES,
    },
  };
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: createApp(deps).fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const tenant = await seedProject(db, { organization: 'Acme', project: 'Mobile' });
  const other = await seedProject(db, { organization: 'Globex', project: 'Other' });
  const call: BuildApi['call'] = async (method, path, body, token = tenant.token) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };
  return {
    url,
    deps,
    token: tenant.token,
    otherToken: other.token,
    call,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await temporal.close();
      await db.destroy();
      await minio?.stop();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

const put = (uploadUrl: string, body: Buffer) =>
  fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(body),
  });

/** A PUT that declares a length without sending it: the server must refuse on the header alone. */
function putDeclaring(uploadUrl: string, contentLength: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      uploadUrl,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(contentLength) },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', reject);
    req.write(Buffer.alloc(16));
  });
}

describe.each(['fs', 's3'] as const)('mobile builds, two-step upload (%s store)', (store) => {
  let api: BuildApi;
  let android: string;
  let ios: string;
  let web: string;

  beforeAll(async () => {
    api = await startBuildApi(store);
    const app = async (name: string, kind: string) =>
      (await api.call('POST', '/v1/applications', { name, kind })).body.shortId as string;
    [android, ios, web] = [
      await app('Shop Android', 'android'),
      await app('Shop iOS', 'ios'),
      await app('Shop Web', 'web'),
    ];
  }, 60_000);
  afterAll(() => api?.stop());

  const uploadUrl = (app: string, fileName: string) =>
    api.call('POST', `/v1/applications/${app}/builds/upload-url`, { fileName });
  const createBuild = (app: string, platform: string, buildToken: string) =>
    api.call('POST', `/v1/applications/${app}/builds`, { platform, buildToken });
  const blobKeyOf = async (buildToken: string) =>
    (
      await api.deps.db
        .selectFrom('build_uploads')
        .select('blob_key')
        .where('token_hash', '=', hashToken(buildToken))
        .executeTakeFirstOrThrow()
    ).blob_key;

  async function upload(app: string, fileName: string, bytes: Buffer): Promise<string> {
    const res = await uploadUrl(app, fileName);
    expect(res.status).toBe(200);
    expect((await put(res.body.uploadUrl, bytes)).status).toBe(200);
    return res.body.buildToken;
  }

  it.each([
    ['shop.apk', 'android', fixtures.apk],
    ['shop.aab', 'android', fixtures.aab],
    ['Shop.ipa', 'ios', fixtures.ipa],
    ['Shop.app.zip', 'ios', fixtures.simulatorZip],
    ['Shop.app.tar.gz', 'ios', fixtures.simulatorTarGz],
  ] as const)('accepts %s as an %s build', async (fileName, platform, make) => {
    const bytes = await make();
    const app = platform === 'android' ? android : ios;
    const token = await upload(app, fileName, bytes);
    const res = await createBuild(app, platform, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ platform, fileName, fileSizeBytes: bytes.length });
    expect(res.body.applicationBuildShortId).toMatch(/^build(-.+_.+|_.+)$/);
    // The stored object is the uploaded file, byte for byte.
    expect(Buffer.from(await api.deps.blobs.get(await blobKeyOf(token))).equals(bytes)).toBe(true);
    const shown = await api.call('GET', `/v1/applications/${app}/builds/${res.body.applicationBuildShortId}`);
    expect(shown.body).toEqual(res.body);
    expect(
      (await api.call('GET', `/v1/applications/${app}/builds`)).body.builds.map((b: any) => b.applicationBuildShortId),
    ).toContain(res.body.applicationBuildShortId);
  });

  it('takes a build larger than the JSON body limit, which still holds for the JSON routes', async () => {
    const bytes = await zipOf({
      'AndroidManifest.xml': Buffer.from([0x03, 0x00]),
      'assets/filler.bin': randomBytes(2 * MAX_JSON_BODY_BYTES),
    });
    const token = await upload(android, 'large.apk', bytes);
    expect(await createBuild(android, 'android', token)).toMatchObject({
      status: 200,
      body: { fileSizeBytes: bytes.length },
    });
    const json = await api.call('POST', `/v1/applications/${android}/builds/upload-url`, {
      fileName: `${'x'.repeat(MAX_JSON_BODY_BYTES)}.apk`,
    });
    expect(json.status).toBe(413);
  });

  it('makes a build an environment of its own application only', async () => {
    const token = await upload(android, 'env.apk', await fixtures.apk());
    const build = (await createBuild(android, 'android', token)).body.applicationBuildShortId;
    const created = await api.call('POST', `/v1/applications/${android}/environments`, {
      name: 'Release candidate',
      applicationBuildShortId: build,
    });
    expect(created).toMatchObject({ status: 201, body: { url: null, applicationBuildShortId: build } });
    expect(
      (
        await api.call('POST', `/v1/applications/${ios}/environments`, {
          name: 'Wrong',
          applicationBuildShortId: build,
        })
      ).status,
    ).toBe(404);
    expect((await api.call('GET', `/v1/applications/${ios}/builds/${build}`)).status).toBe(404);
  });

  it('refuses unsupported names, web applications and unknown or foreign applications', async () => {
    expect(await uploadUrl(android, 'notes.txt')).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/unsupported build file type/) },
    });
    expect(await uploadUrl(android, '.apk')).toMatchObject({ status: 400 });
    expect(await uploadUrl(web, 'shop.apk')).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/web application/) },
    });
    expect(await uploadUrl(ios, 'shop.apk')).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/android build cannot be uploaded to an ios application/) },
    });
    expect((await uploadUrl('app_doesnotexist', 'shop.apk')).status).toBe(404);
    expect(
      (
        await api.call(
          'POST',
          `/v1/applications/${android}/builds/upload-url`,
          { fileName: 'shop.apk' },
          api.otherToken,
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await api.call(
          'POST',
          `/v1/applications/${android}/builds`,
          { platform: 'android', buildToken: 'pbt_x' },
          api.otherToken,
        )
      ).status,
    ).toBe(404);
    expect((await api.call('POST', `/v1/applications/${android}/builds/upload-url`, {})).status).toBe(400);
    expect((await api.deps.db.selectFrom('build_uploads').select('id').execute()).length).toBeGreaterThan(0);
  });

  it('refuses a renamed text file and deletes it', async () => {
    const token = await upload(android, 'renamed.apk', Buffer.from('this is not an android app\n'.repeat(20)));
    const res = await createBuild(android, 'android', token);
    expect(res).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/not an Android APK.*not a zip archive/) },
    });
    expect(await api.deps.blobs.stat(await blobKeyOf(token))).toBeNull();
  });

  it('refuses a zip without the marker of its type (an APK named .aab) and deletes it', async () => {
    const token = await upload(android, 'shop.aab', await fixtures.apk());
    const res = await createBuild(android, 'android', token);
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringMatching(/BundleConfig\.pb/) } });
    expect(await api.deps.blobs.stat(await blobKeyOf(token))).toBeNull();
    const noPayload = await upload(ios, 'Shop.ipa', await zipOf({ 'Shop.app/Info.plist': '<plist/>' }));
    expect(await createBuild(ios, 'ios', noPayload)).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/Payload/) },
    });
  });

  it('refuses the wrong platform and deletes the file', async () => {
    const token = await upload(android, 'shop.apk', await fixtures.apk());
    const res = await createBuild(android, 'ios', token);
    expect(res).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/is an android build, not ios/) },
    });
    expect(await api.deps.blobs.stat(await blobKeyOf(token))).toBeNull();
  });

  it('uses a token once; a token without an upload is kept until the file arrives', async () => {
    const res = await uploadUrl(android, 'late.apk');
    const early = await createBuild(android, 'android', res.body.buildToken);
    expect(early).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/PUT it to the uploadUrl first/) },
    });
    expect((await put(res.body.uploadUrl, await fixtures.apk())).status).toBe(200);
    expect((await createBuild(android, 'android', res.body.buildToken)).status).toBe(200);
    const again = await createBuild(android, 'android', res.body.buildToken);
    expect(again).toMatchObject({ status: 400, body: { message: expect.stringMatching(/already used/) } });
    expect((await createBuild(android, 'android', 'pbt_made-up')).status).toBe(400);
  });

  it('refuses an upload to an expired URL', async () => {
    api.deps.config.PROCTOR_BUILD_UPLOAD_TTL_SECONDS = 1;
    const res = await uploadUrl(android, 'slow.apk');
    api.deps.config.PROCTOR_BUILD_UPLOAD_TTL_SECONDS = 600;
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await put(res.body.uploadUrl, await fixtures.apk())).status).toBe(403);
    expect(await api.deps.blobs.stat(await blobKeyOf(res.body.buildToken))).toBeNull();
  });

  it('with a declared fileSize, the store itself takes exactly that length and refuses any other', async () => {
    const bytes = await fixtures.apk();
    const res = await api.call('POST', `/v1/applications/${android}/builds/upload-url`, {
      fileName: 'sized.apk',
      fileSize: bytes.length,
    });
    expect(res.status).toBe(200);
    // One byte more, one byte less: refused by the store (MinIO: the signed Content-Length no longer matches).
    const longer = await put(res.body.uploadUrl, Buffer.concat([bytes, Buffer.from([0])]));
    expect(longer.status).toBe(403);
    if (store === 's3') expect(await longer.text()).toMatch(/SignatureDoesNotMatch/);
    expect((await put(res.body.uploadUrl, bytes.subarray(1))).status).toBe(403);
    if (store === 'fs') {
      // The size is signed: editing it in the URL breaks the signature.
      const edited = res.body.uploadUrl.replace(`size=${bytes.length}`, `size=${bytes.length + 1}`);
      expect(edited).not.toBe(res.body.uploadUrl);
      expect((await put(edited, Buffer.concat([bytes, Buffer.from([0])]))).status).toBe(403);
    }
    expect(await api.deps.blobs.stat(await blobKeyOf(res.body.buildToken))).toBeNull();
    // The declared length is taken, and becomes a build.
    expect((await put(res.body.uploadUrl, bytes)).status).toBe(200);
    expect(await createBuild(android, 'android', res.body.buildToken)).toMatchObject({
      status: 200,
      body: { fileName: 'sized.apk', fileSizeBytes: bytes.length },
    });
  });

  it('refuses a declared fileSize over the cap at once, issuing nothing', async () => {
    const uploads = async () => (await api.deps.db.selectFrom('build_uploads').select('id').execute()).length;
    const before = await uploads();
    const res = await api.call('POST', `/v1/applications/${android}/builds/upload-url`, {
      fileName: 'huge.apk',
      fileSize: MAX_BYTES + 1,
    });
    expect(res).toMatchObject({
      status: 400,
      body: { message: `fileSize: ${MAX_BYTES + 1} bytes is over the limit of ${MAX_BYTES} bytes for a build` },
    });
    expect(
      (await api.call('POST', `/v1/applications/${android}/builds/upload-url`, { fileName: 'zero.apk', fileSize: 0 }))
        .status,
    ).toBe(400);
    expect(await uploads()).toBe(before);
  });

  it('refuses an oversize build: by its declared length (fs store), or before it becomes a build (S3)', async () => {
    const big = await zipOf({ 'AndroidManifest.xml': 'x', 'assets/filler.bin': randomBytes(MAX_BYTES) });
    const res = await uploadUrl(android, 'big.apk');
    if (store === 'fs') {
      // The signed cap travels in the URL: refused on the header alone, before any byte is stored.
      expect(await putDeclaring(res.body.uploadUrl, 6 * 1024 ** 3)).toBe(413);
      expect(await putDeclaring(res.body.uploadUrl, MAX_BYTES + 1)).toBe(413);
      expect((await put(res.body.uploadUrl, big)).status).toBe(413);
    } else {
      // Without a declared fileSize an S3 presigned PUT cannot bound the length; MinIO stores the file and registration refuses it.
      expect((await put(res.body.uploadUrl, big)).status).toBe(200);
      const created = await createBuild(android, 'android', res.body.buildToken);
      expect(created).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(new RegExp(`limit is ${MAX_BYTES}`)) },
      });
    }
    expect(await api.deps.blobs.stat(await blobKeyOf(res.body.buildToken))).toBeNull();
  });
});
