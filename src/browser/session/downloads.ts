import { open, stat } from 'node:fs/promises';
import type { Download, Page } from 'playwright-core';
import type { StepDownload } from '../../domain/step-events.js';
import { StepFailedError } from '../steps/actions.js';
import { fileTypeOf } from '../steps/files.js';

/** A file a step downloaded, on the worker's disk until the browser context closes. */
export interface DownloadedFile {
  fileName: string;
  path: string;
  size: number;
  type: string;
}

/** The downloaded file is not what the step recorded (wrong name, empty, too large, another type). */
export class DownloadMismatchError extends StepFailedError {
  override name = 'DownloadMismatchError';
  override readonly kind = 'assertion' as const;
}

/** Collects the downloads of every tab; a step takes the one it started. */
export class DownloadWatch {
  private pending: Download[] = [];

  attach(page: Page): void {
    page.on('download', (download) => this.pending.push(download));
  }

  begin(): void {
    this.pending = [];
  }

  /** The download the step started (waiting up to `waitMs` for it to begin), read to the end. */
  async take(waitMs: number): Promise<DownloadedFile | undefined> {
    const deadline = Date.now() + waitMs;
    while (this.pending.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const download = this.pending.shift();
    if (!download) return undefined;
    const path = await download.path().catch(() => null);
    if (!path)
      throw new DownloadMismatchError(
        `the download "${download.suggestedFilename()}" failed: ${(await download.failure()) ?? 'no file'}`,
      );
    const size = (await stat(path)).size;
    return {
      fileName: download.suggestedFilename(),
      path,
      size,
      type: fileTypeOf(await head(path), download.suggestedFilename()),
    };
  }
}

async function head(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * What a download recorded at burn-in promises: a name of the same shape (digits may change: invoice-1043.pdf),
 * a size within a factor of four, the same type. An empty file is never what a step promises.
 */
export function downloadExpectation(file: DownloadedFile): StepDownload {
  if (file.size === 0) throw new StepFailedError(`the download "${file.fileName}" is empty`);
  const pattern = file.fileName
    .split(/\d+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('\\d+');
  return {
    fileNamePattern: `^${pattern}$`,
    minBytes: Math.max(1, Math.floor(file.size / 4)),
    maxBytes: file.size * 4 + 4096,
    type: file.type,
  };
}

/** Throws when the file is not what the step recorded. */
export function checkDownload(file: DownloadedFile, expected: StepDownload): void {
  const problems: string[] = [];
  if (!new RegExp(expected.fileNamePattern).test(file.fileName))
    problems.push(`its name does not match ${expected.fileNamePattern}`);
  if (file.size === 0) problems.push('it is empty');
  else if (file.size < expected.minBytes) problems.push(`it has ${file.size} bytes, fewer than ${expected.minBytes}`);
  if (file.size > expected.maxBytes) problems.push(`it has ${file.size} bytes, more than ${expected.maxBytes}`);
  if (file.size > 0 && file.type !== expected.type) problems.push(`it is ${file.type}, not ${expected.type}`);
  if (problems.length > 0)
    throw new DownloadMismatchError(`the download "${file.fileName}" is not as recorded: ${problems.join('; ')}`);
}
