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
  'app-zip': { pattern: /^[^/]+\.app\/Info\.plist$/, describe: 'a zipped iOS simulator app (<name>.app/Info.plist at its root)' },
  'app-tar-gz': { pattern: /^(\.\/)?[^/]+\.app\/Info\.plist$/, describe: 'a gzipped tar of an iOS simulator app (<name>.app/Info.plist at its root)' },
};

/**
 * Checks that the object under `key` is the kind of build `type` says. Zip-based builds are judged by their
 * central directory alone, read through ranged reads of the blob store: a 4 GiB build costs a few
 * kilobytes of I/O and no memory to speak of. A tar has no index, so a .tar.gz is streamed until the marker.
 */
export async function inspectBuild(blobs: BlobStore, key: string, size: number, type: BuildFileType): Promise<InspectionFailure> {
  const marker = markers[type];
  const found = type === 'app-tar-gz' ? await tarHasEntry(blobs, key, size, marker.pattern) : await zipHasEntry(blobs, key, size, marker.pattern);
  if (found === true) return undefined;
  return `the uploaded file is not ${marker.describe}${typeof found === 'string' ? `: ${found}` : ''}`;
}

/** yauzl's view of an object in the blob store: every read is a ranged GET (S3) or a positioned read (fs). */
class BlobRangeReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly blobs: BlobStore,
    private readonly key: string,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    this.blobs.openRange(this.key, start, end).then(
      (stream) => {
        stream.on('error', (err) => out.destroy(err));
        stream.pipe(out);
      },
      (err: Error) => out.destroy(err),
    );
    return out;
  }
}

// true when an entry matches; a string when the file is not a readable zip at all.
async function zipHasEntry(blobs: BlobStore, key: string, size: number, pattern: RegExp): Promise<boolean | string> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(new BlobRangeReader(blobs, key), size, { lazyEntries: true, autoClose: true });
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
