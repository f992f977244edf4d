// TOTP (RFC 6238 over RFC 4226 HOTP): a config of type `totp` holds an `otpauth://totp/...` URI or a bare base32
// seed; a step that references it types the code current at the moment it runs, so every replay uses a fresh one.
import { createHmac } from 'node:crypto';

export const totpAlgorithms = ['SHA1', 'SHA256', 'SHA512'] as const;
export type TotpAlgorithm = (typeof totpAlgorithms)[number];

export interface TotpKey {
  secret: Buffer;
  algorithm: TotpAlgorithm;
  digits: number;
  /** Seconds a code stays current. */
  period: number;
}

/** Why `value` is not a TOTP seed or otpauth URI, in words for a 400; undefined when it is one. */
export function totpProblem(value: string): string | undefined {
  try {
    parseTotp(value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The key of an `otpauth://totp/...` URI or a base32 seed (spaces and case ignored, as authenticator apps do). */
export function parseTotp(value: string): TotpKey {
  const text = value.trim();
  if (!/^otpauth:/i.test(text)) return { secret: base32Decode(text), algorithm: 'SHA1', digits: 6, period: 30 };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('not a valid otpauth:// URI');
  }
  if (url.host.toLowerCase() !== 'totp')
    throw new Error(`otpauth URI of type "${url.host}": only otpauth://totp/ is supported`);
  const secret = url.searchParams.get('secret');
  if (!secret) throw new Error('the otpauth URI has no secret= parameter');
  const algorithm = (url.searchParams.get('algorithm') ?? 'SHA1').toUpperCase();
  if (!(totpAlgorithms as readonly string[]).includes(algorithm))
    throw new Error(`algorithm ${algorithm}: use SHA1, SHA256 or SHA512`);
  const digits = Number(url.searchParams.get('digits') ?? 6);
  if (!Number.isInteger(digits) || digits < 6 || digits > 8) throw new Error('digits: must be 6, 7 or 8');
  const period = Number(url.searchParams.get('period') ?? 30);
  if (!Number.isInteger(period) || period < 1 || period > 300)
    throw new Error('period: must be a whole number of seconds from 1 to 300');
  return { secret: base32Decode(secret), algorithm: algorithm as TotpAlgorithm, digits, period };
}

/** The code current at `timeMs` (RFC 6238 section 4: T = floor(unix seconds / period), zero-padded). */
export function totpCode(key: TotpKey, timeMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timeMs / 1000 / key.period)));
  const hmac = createHmac(key.algorithm.toLowerCase(), key.secret).update(counter).digest();
  // RFC 4226 5.3 dynamic truncation: 31 bits from the offset the last nibble names.
  const offset = hmac[hmac.length - 1]! & 0x0f;
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** key.digits).padStart(key.digits, '0');
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, padding optional. */
export function base32Decode(input: string): Buffer {
  const clean = input.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (clean.length === 0) throw new Error('the seed is empty: give a base32 seed or an otpauth://totp/ URI');
  const bytes: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const char of clean) {
    const index = alphabet.indexOf(char);
    if (index < 0)
      throw new Error(`the seed is not base32 (unexpected "${char}"): give a base32 seed or an otpauth://totp/ URI`);
    acc = (acc << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  // Fewer than 80 bits guesses in seconds; RFC 4226 asks for 128 and recommends 160. Authenticators accept 80.
  if (bytes.length < 10) throw new Error('the seed is too short: at least 16 base32 characters (80 bits)');
  return Buffer.from(bytes);
}

export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(acc >> bits) & 31];
    }
  }
  if (bits > 0) out += alphabet[(acc << (5 - bits)) & 31];
  return out;
}
