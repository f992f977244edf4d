// What checking an uploaded build costs: a large APK-shaped zip (one big incompressible entry plus many small
// ones, like a real app) is stored in the fs store and in MinIO, then `inspectBuild` reads its central
// directory through ranged reads. Prints the archive size, bytes actually read, ranged requests, time and
// the heap growth, so "never reads the whole archive" is a figure, not a claim.
//
//   node --import tsx bench/build-inspect.ts
//   BENCH_BUILD_MB=512  size of the big entry (default 256)    BENCH_BUILD_ENTRIES=20000  small entries (default 10000)
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { inspectBuild } from '../src/builds/inspect.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createS3BlobStore } from '../src/storage/s3.js';
import { minioBucket, startInstalledMinio } from '../test/support/minio.js';
import { envInt, fixed, median, table, watchdog } from './support.js';

const bigMb = envInt('BENCH_BUILD_MB', 256);
const smallEntries = envInt('BENCH_BUILD_ENTRIES', 10_000);
const rounds = 5;
watchdog(600, 'bench/build-inspect');

async function writeApk(path: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (let i = 0; i < smallEntries; i++)
    zip.addBuffer(Buffer.from(`asset ${i}`), `res/raw/asset_${i}.txt`, { compress: false });
  // Random bytes stored uncompressed: the archive really is this large on disk.
  const filler = Readable.from(
    (function* () {
      for (let i = 0; i < bigMb; i++) yield randomBytes(1024 * 1024);
    })(),
  );
  zip.addReadStream(filler, 'assets/big.bin', { compress: false });
  // Last in the central directory: the worst case, every entry is read before the marker is found.
  zip.addBuffer(Buffer.from('<manifest/>'), 'AndroidManifest.xml');
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** Counts what the inspection asks of the store. */
function counting(store: BlobStore) {
  const stats = { requests: 0, bytes: 0 };
  const wrapped: BlobStore = {
    ...store,
    async openRange(key, start, end) {
      stats.requests++;
      stats.bytes += end - start;
      return store.openRange(key, start, end);
    },
  };
  return { wrapped, stats };
}

async function measure(name: string, store: BlobStore, key: string, size: number): Promise<(string | number)[]> {
  const times: number[] = [];
  let last = { requests: 0, bytes: 0 };
  let heapGrowth = 0;
  for (let i = 0; i < rounds; i++) {
    const { wrapped, stats } = counting(store);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const failure = await inspectBuild(wrapped, key, size, 'apk');
    times.push(performance.now() - started);
    heapGrowth = Math.max(heapGrowth, process.memoryUsage().heapUsed - heapBefore);
    if (failure) throw new Error(`${name}: ${failure}`);
    last = stats;
  }
  return [
    name,
    fixed(size / 1024 / 1024),
    fixed(last.bytes / 1024, 0),
    last.requests,
    fixed(median(times)),
    fixed(heapGrowth / 1024 / 1024),
  ];
}

const dir = mkdtempSync(join(tmpdir(), 'proctor-bench-build-'));
const minio = await startInstalledMinio();
try {
  const apk = join(dir, 'big.apk');
  await writeApk(apk);
  const size = statSync(apk).size;
  const key = 'builds/bench/big.apk';

  const fs = createFsBlobStore({
    dir: join(dir, 'blobs'),
    secret: randomBytes(32).toString('hex'),
    publicUrl: 'http://127.0.0.1:1',
  });
  await fs.ensureReady();
  await fs.putStream(key, ReadableStreamFrom(apk), size);
  const s3 = createS3BlobStore(minioBucket(minio, 'bench'));
  await s3.ensureReady();
  const presigned = await s3.presignPut(key, 600);
  // S3 wants a Content-Length on a PUT (chunked uploads get 411), as curl -T sends it.
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      presigned,
      { method: 'PUT', headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    createReadStream(apk).pipe(req);
  });
  if (status !== 200) throw new Error(`MinIO PUT: ${status}`);

  console.log(
    `inspectBuild of an APK with ${smallEntries} small entries and one ${bigMb} MiB entry, median of ${rounds}\n`,
  );
  console.log(
    table(
      ['store', 'archive MiB', 'read KiB', 'ranged reads', 'median ms', 'max heap growth MiB'],
      [await measure('fs', fs, key, size), await measure('s3 (MinIO)', s3, key, size)],
    ),
  );
} finally {
  await minio.stop();
  rmSync(dir, { recursive: true, force: true });
}

function ReadableStreamFrom(path: string): ReadableStream<Uint8Array> {
  return new Response(createReadStream(path) as unknown as BodyInit).body!;
}
