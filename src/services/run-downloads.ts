import { readFile } from 'node:fs/promises';
import type { DownloadedFile } from '../browser/session/session.js';
import type { RunDownload } from '../domain/step-events.js';
import type { BlobStore } from '../storage/blob-store.js';
import { mimeTypeOf } from '../domain/file-types.js';

/** A file a run's step downloaded, kept in the blob store beside the trace. */
export type KeptDownload = RunDownload;

// Downloads bigger than this are checked but not kept: an artifact store is not a file mirror.
const maxKeptBytes = 50 * 1024 * 1024;

/** Stores a downloaded file under the run's artifact prefix; undefined when it is too large to keep. */
export async function keepDownload(
  blobs: BlobStore,
  artifactPrefix: string,
  stepIndex: number,
  file: DownloadedFile,
): Promise<KeptDownload | undefined> {
  if (file.size > maxKeptBytes) return undefined;
  const safeName = file.fileName.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'download';
  const key = `${artifactPrefix}/downloads/${stepIndex + 1}-${safeName}`;
  await blobs.put(key, await readFile(file.path), mimeTypeOf(file.type));
  return { stepIndex, fileName: file.fileName, size: file.size, type: file.type, key };
}
