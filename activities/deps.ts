import type { DB } from '../src/db/database.js';
import type { Logger } from '../src/logger.js';
import type { BlobStore } from '../src/storage/blob-store.js';

/** What activities may use; built once by the worker (the composition root) and passed in. */
export interface ActivityDeps {
  db: DB;
  blobs: BlobStore;
  logger: Logger;
}
