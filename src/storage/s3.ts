import { Readable } from 'node:stream';
import { Client, S3Error, type BucketItem } from 'minio';
import { assertValidKey, assertValidPrefix, BlobNotFoundError, type BlobStore } from './blob-store.js';
import { presignPutUrl } from './s3-presign.js';

export interface S3BlobStoreOptions {
  /** e.g. `http://127.0.0.1:9000` or `https://s3.eu-west-1.amazonaws.com` */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

export function createS3BlobStore({ endpoint, accessKey, secretKey, bucket, region }: S3BlobStoreOptions): BlobStore {
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  const client = new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey,
    secretKey,
    region,
    // MinIO and most S3-compatible servers have no wildcard DNS for bucket subdomains.
    pathStyle: true,
  });

  return {
    kind: 's3',

    async ensureReady() {
      if (await client.bucketExists(bucket)) return;
      try {
        await client.makeBucket(bucket, region);
      } catch (err) {
        // Another process (API and worker start together) may have created it in between.
        if (!(err instanceof S3Error && (err.code === 'BucketAlreadyOwnedByYou' || err.code === 'BucketAlreadyExists')))
          throw err;
      }
    },

    async put(key, body, contentType) {
      assertValidKey(key);
      const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      await client.putObject(bucket, key, bytes, bytes.byteLength, contentType ? { 'Content-Type': contentType } : {});
    },

    async get(key) {
      assertValidKey(key);
      try {
        const stream = await client.getObject(bucket, key);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      } catch (err) {
        if (isMissing(err)) throw new BlobNotFoundError(key);
        throw err;
      }
    },

    async stat(key) {
      assertValidKey(key);
      try {
        const info = await client.statObject(bucket, key);
        return { size: info.size };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async openRange(key, start, end) {
      assertValidKey(key);
      if (end <= start) return Readable.from([]);
      try {
        return await client.getPartialObject(bucket, key, start, end - start);
      } catch (err) {
        if (isMissing(err)) throw new BlobNotFoundError(key);
        throw err;
      }
    },

    async delete(key) {
      assertValidKey(key);
      await client.removeObject(bucket, key);
    },

    // Not a generator itself: a bad prefix throws at the call, as on the fs store, not at the first read.
    list(prefix) {
      assertValidPrefix(prefix);
      return (async function* () {
        for await (const item of client.listObjectsV2(bucket, prefix, true) as AsyncIterable<BucketItem>) {
          if (item.name) yield { key: item.name, lastModified: item.lastModified };
        }
      })();
    },

    async presignPut(key, expiresInSeconds, options) {
      assertValidKey(key);
      return presignPutUrl({
        endpoint: url,
        region,
        accessKey,
        secretKey,
        bucket,
        key,
        expiresInSeconds,
        contentLength: options?.size,
      });
    },

    async presignGet(key, expiresInSeconds) {
      assertValidKey(key);
      return client.presignedGetObject(bucket, key, Math.max(1, Math.floor(expiresInSeconds)));
    },
  };
}

// GET answers NoSuchKey; HEAD has no body, so the client can only say NotFound.
function isMissing(err: unknown): boolean {
  return err instanceof S3Error && (err.code === 'NoSuchKey' || err.code === 'NotFound');
}
