import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListedBlob } from './blob-store.js';

/** The files under `root/prefix` as blob keys; a folder that does not exist lists nothing. */
export async function* listFiles(root: string, prefix: string): AsyncGenerator<ListedBlob> {
  let entries;
  try {
    entries = await readdir(join(root, ...prefix.slice(0, -1).split('/')), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries) {
    const key = `${prefix}${entry.name}`;
    if (entry.isDirectory()) yield* listFiles(root, `${key}/`);
    else if (entry.isFile()) {
      // Deleted between the listing and the stat: it is gone, which is what a sweep wanted.
      const info = await stat(join(root, ...key.split('/'))).catch(() => undefined);
      if (info) yield { key, lastModified: info.mtime };
    }
  }
}
