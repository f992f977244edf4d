// AWS Signature V4 query-string signing of a PUT URL, written here because the minio client never signs
// Content-Length (it leaves it out on purpose, so its URLs take any size). A URL signed with
// `content-length` among its signed headers is refused by S3 and MinIO for any other length: the store
// itself enforces the size the uploader declared.
import { createHash, createHmac } from 'node:crypto';

export interface PresignPutInput {
  /** The S3 endpoint, path-style (`http://127.0.0.1:9000`). */
  endpoint: URL;
  region: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  key: string;
  expiresInSeconds: number;
  /** When given, the only Content-Length the URL accepts. */
  contentLength?: number;
  now?: Date;
}

const algorithm = 'AWS4-HMAC-SHA256';

// RFC 3986: everything but the unreserved characters is percent-encoded, with upper-case hex.
const encode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, text: string): Buffer => createHmac('sha256', key).update(text).digest();

export function presignPutUrl(input: PresignPutInput): string {
  const now = input.now ?? new Date();
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/s3/aws4_request`;
  // The Host header a client sends: the port only when it is not the scheme's default.
  const host = input.endpoint.host;
  const path = `/${encode(input.bucket)}/${input.key.split('/').map(encode).join('/')}`;

  const headers: [string, string][] = [
    ...(input.contentLength === undefined ? [] : [['content-length', String(input.contentLength)] as [string, string]]),
    ['host', host],
  ];
  const signedHeaders = headers.map(([name]) => name).join(';');
  const query = [
    ['X-Amz-Algorithm', algorithm],
    ['X-Amz-Credential', `${input.accessKey}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(Math.max(1, Math.min(7 * 24 * 3600, Math.floor(input.expiresInSeconds))))],
    ['X-Amz-SignedHeaders', signedHeaders],
  ]
    .map(([name, value]) => `${encode(name!)}=${encode(value!)}`)
    .sort()
    .join('&');

  const canonicalRequest = [
    'PUT',
    path,
    query,
    headers.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [algorithm, amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join(
    '\n',
  );
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${input.secretKey}`, day), input.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `${input.endpoint.protocol}//${host}${path}?${query}&X-Amz-Signature=${signature}`;
}
