// The filesystem blob store's presigned URLs, served by the API in `proctor dev` in place of S3: the store the
// blob routes read and write, and how they tell an upload that outgrew its cap from another failure.
import { BlobTooLargeError, type FsBlobStore, type SignedMethod } from '../storage/fs.js';

/** The store behind the blob routes: the filesystem one, which verifies the URLs it signed. */
export type SignedBlobStore = FsBlobStore;
export type { SignedMethod };

/** Whether a failed `putStream` was refused for going over its byte limit. */
export const isBlobTooLarge = (err: unknown): boolean => err instanceof BlobTooLargeError;
