import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { shortIdPrefixes, slugify, type ShortIdKind } from './domain/short-ids.js';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomString(length: number, chars = alphabet): string {
  // Rejection sampling keeps every character equally likely.
  const out: string[] = [];
  const limit = 256 - (256 % chars.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out.push(chars[byte % chars.length]!);
    }
  }
  return out.join('');
}

/** `app_k3x9...` or, with a name, `app-checkout-web_k3x9...` (both match the spec's patterns). */
export function newShortId(kind: ShortIdKind, name?: string): string {
  const prefix = shortIdPrefixes[kind];
  const slug = name ? slugify(name) : '';
  return `${prefix}${slug ? `-${slug}` : ''}_${randomString(12)}`;
}

export const newId = (): string => randomUUID();

/** A new name for a visual check's baselines: a new check, or a new baseline proposed for an existing one. */
export const newBaselineName = (): string => randomString(12);

// The UUIDv5 namespace of ids Proctor derives from a business key (fixed: changing it changes every derived id).
const derivedIdNamespace = Buffer.from('6f1c3a52d8e74b0f9a1e5c7d2b4f8e30', 'hex');

/**
 * The same UUID for the same key, every time (RFC 9562 version 5): an id that a retried activity must find
 * again, such as the test case a chat turn's tool call creates.
 */
export function idFromKey(key: string): string {
  const bytes = createHash('sha1').update(derivedIdNamespace).update(key, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const tokenPrefixes = { api: 'prt_', badge: 'prb_' } as const;
export type TokenKindName = keyof typeof tokenPrefixes;

const tokenAlphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new secret token: type prefix + 40 base62 characters (~238 bits). Only its hash is stored. */
export function newToken(kind: TokenKindName): string {
  return tokenPrefixes[kind] + randomString(40, tokenAlphabet);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
