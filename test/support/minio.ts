import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPrograms } from '../../src/programs.js';
import type { S3BlobStoreOptions } from '../../src/storage/s3.js';
import { freePort, waitFor } from './net.js';

export interface MinioServer {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  stop(): Promise<void>;
}

/** A private MinIO on free ports over a temporary directory, removed again by `stop()`. */
export async function startMinio(binary: string): Promise<MinioServer> {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-minio-'));
  const [port, consolePort] = [await freePort(), await freePort()];
  const accessKey = 'proctor-test';
  const secretKey = randomBytes(16).toString('hex');
  const endpoint = `http://127.0.0.1:${port}`;

  const child = spawn(
    binary,
    ['server', dir, '--quiet', '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`],
    {
      env: {
        ...process.env,
        MINIO_ROOT_USER: accessKey,
        MINIO_ROOT_PASSWORD: secretKey,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // If the test process dies without calling stop(), the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`minio exited with code ${child.exitCode}: ${stderr}`);
        try {
          const res = await fetch(`${endpoint}/minio/health/live`);
          return res.status === 200;
        } catch {
          return false;
        }
      },
      30_000,
      'minio to become live',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, accessKey, secretKey, stop };
}

/** A private MinIO from the binary `npm run setup:test` installs (see `startMinio`). */
export async function startInstalledMinio(): Promise<MinioServer> {
  const binary = loadPrograms().minio;
  if (!binary) throw new Error('minio not installed: run npm run setup:test');
  return startMinio(binary);
}

/** The S3 options of `bucket` on this MinIO, for `createS3BlobStore` (MinIO takes any region name). */
export const minioBucket = (minio: MinioServer, bucket: string): S3BlobStoreOptions => ({
  endpoint: minio.endpoint,
  accessKey: minio.accessKey,
  secretKey: minio.secretKey,
  bucket,
  region: 'us-east-1',
});
