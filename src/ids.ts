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
