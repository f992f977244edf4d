import type { BlobStore } from './blob-store.js';
import { createFsBlobStore } from './fs.js';
import { createS3BlobStore, type S3BlobStoreOptions } from './s3.js';

export interface BlobStoreConfig {
  s3?: S3BlobStoreOptions;
  blobDir: string;
  blobSecret: string;
  publicUrl: string;
}

/** S3 when configured; otherwise files served by the API itself, which is enough for one machine. */
export function createBlobStore(config: BlobStoreConfig): BlobStore {
  if (config.s3) return createS3BlobStore(config.s3);
  return createFsBlobStore({ dir: config.blobDir, secret: config.blobSecret, publicUrl: config.publicUrl });
}
