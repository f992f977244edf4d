// The MIME type a file is stored and served with, from the type `fileTypeOf` (src/browser/steps/files.ts) reads from
// its bytes: the same for a project's uploaded file and a run's downloaded one.

const mimeTypes: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  zip: 'application/zip',
  csv: 'text/csv',
  json: 'application/json',
  text: 'text/plain',
};

/** A type with no MIME type of its own (`binary`, `empty`) is served as bytes. */
export const mimeTypeOf = (fileType: string): string => mimeTypes[fileType] ?? 'application/octet-stream';
