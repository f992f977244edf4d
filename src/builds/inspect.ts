import { PassThrough, type Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import type { BlobStore } from '../storage/blob-store.js';
import type { BuildFileType } from './file-types.js';

/** Why an uploaded file is not the build its name promised; undefined when it is. */
export type InspectionFailure = string | undefined;

// The entry that makes each kind of archive what it claims to be.
const markers: Record<BuildFileType, { pattern: RegExp; describe: string }> = {
  apk: { pattern: /^AndroidManifest\.xml$/, describe: 'an Android APK (AndroidManifest.xml at its root)' },
  aab: { pattern: /^BundleConfig\.pb$/, describe: 'an Android App Bundle (BundleConfig.pb at its root)' },
  ipa: { pattern: /^Payload\/[^/]+\.app\/Info\.plist$/, describe: 'an iOS IPA (Payload/<name>.app/Info.plist)' },
  'app-zip': {
    pattern: /^[^/]+\.app\/Info\.plist$/,
    describe: 'a zipped iOS simulator app (<name>.app/Info.plist at its root)',
  },
  'app-tar-gz': {
    pattern: /^(\.\/)?[^/]+\.app\/Info\.plist$/,
    describe: 'a gzipped tar of an iOS simulator app (<name>.app/Info.plist at its root)',
  },
};

/**
 * Checks that the object under `key` is the kind of build `type` says. Zip-based builds are judged by their
 * central directory alone, read through ranged reads of the blob store: a 4 GiB build costs a few
 * kilobytes of I/O and no memory to speak of. A tar has no index, so a .tar.gz is streamed until the marker.
 */
export async function inspectBuild(
  blobs: BlobStore,
  key: string,
  size: number,
  type: BuildFileType,
): Promise<InspectionFailure> {
  const marker = markers[type];
  const found =
    type === 'app-tar-gz'
      ? await tarHasEntry(blobs, key, size, marker.pattern)
      : await zipHasEntry(blobs, key, size, marker.pattern);
  if (found === true) return undefined;
  return `the uploaded file is not ${marker.describe}${typeof found === 'string' ? `: ${found}` : ''}`;
}

/**
 * yauzl's view of an object in the blob store. yauzl asks for each central-directory record (and its name)
 * separately, so reads are served from a read-ahead window: one ranged GET per 1 MiB of directory instead
 * of two per entry (20,000 requests for a 10,000-entry APK without it; see bench/build-inspect.ts).
 */
class BlobRangeReader extends yauzl.RandomAccessReader {
  private window: Promise<{ start: number; bytes: Buffer }> | undefined;

  constructor(
    private readonly blobs: BlobStore,
    private readonly key: string,
    private readonly size: number,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    if (end - start > READ_AHEAD_BYTES) {
      this.blobs.openRange(this.key, start, end).then(
        (stream) => {
          stream.on('error', (err) => out.destroy(err));
          stream.pipe(out);
        },
        (err: Error) => out.destroy(err),
      );
      return out;
    }
    this.windowFor(start, end).then(
      (w) => out.end(w.bytes.subarray(start - w.start, end - w.start)),
      (err: Error) => out.destroy(err),
    );
    return out;
  }

  private async windowFor(start: number, end: number): Promise<{ start: number; bytes: Buffer }> {
    const current = this.window && (await this.window.catch(() => undefined));
    if (current && start >= current.start && end <= current.start + current.bytes.length) return current;
    this.window = (async () => {
      const stream = await this.blobs.openRange(this.key, start, Math.min(this.size, start + READ_AHEAD_BYTES));
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return { start, bytes: Buffer.concat(chunks) };
    })();
    return this.window;
  }
}

const READ_AHEAD_BYTES = 1024 * 1024;

// true when an entry matches; a string when the file is not a readable zip at all.
async function zipHasEntry(blobs: BlobStore, key: string, size: number, pattern: RegExp): Promise<boolean | string> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(new BlobRangeReader(blobs, key, size), size, {
      lazyEntries: true,
      autoClose: true,
    });
  } catch (err) {
    return `not a zip archive (${err instanceof Error ? err.message : String(err)})`;
  }
  return new Promise<boolean | string>((resolve) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (pattern.test(entry.fileName)) {
        zip.close();
        resolve(true);
      } else zip.readEntry();
    });
    zip.on('end', () => resolve(false));
    zip.on('error', (err: Error) => resolve(`unreadable zip archive (${err.message})`));
    zip.readEntry();
  });
}

async function tarHasEntry(blobs: BlobStore, key: string, size: number, pattern: RegExp): Promise<boolean | string> {
  const input = await blobs.openRange(key, 0, size);
  return new Promise<boolean | string>((resolve) => {
    let settled = false;
    const settle = (value: boolean | string) => {
      if (settled) return;
      settled = true;
      input.destroy();
      resolve(value);
    };
    // strict: a file that is not gzip/tar is an error, not a warning and an empty listing.
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (pattern.test(entry.path)) settle(true);
        else entry.resume();
      },
    });
    parser.on('error', (err: Error) => settle(`not a gzipped tar archive (${err.message})`));
    parser.on('end', () => settle(false));
    input.on('error', (err) => settle(`unreadable archive (${err.message})`));
    input.pipe(parser);
  });
}
