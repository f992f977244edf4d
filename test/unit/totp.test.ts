import { describe, expect, it } from 'vitest';
import { RunValues } from '../../src/domain/run-values.js';
import { base32Encode, parseTotp, totpCode, totpProblem, type TotpAlgorithm } from '../../src/domain/totp.js';

// RFC 6238 Appendix B: 8-digit codes, 30 s steps, the ASCII seeds "1234567890" repeated to the hash's length.
const seeds: Record<TotpAlgorithm, string> = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
};
const vectors: Array<[number, TotpAlgorithm, string]> = [
  [59, 'SHA1', '94287082'],
  [59, 'SHA256', '46119246'],
  [59, 'SHA512', '90693936'],
  [1111111109, 'SHA1', '07081804'],
  [1111111109, 'SHA256', '68084774'],
  [1111111109, 'SHA512', '25091201'],
  [1111111111, 'SHA1', '14050471'],
  [1111111111, 'SHA256', '67062674'],
  [1111111111, 'SHA512', '99943326'],
  [1234567890, 'SHA1', '89005924'],
  [1234567890, 'SHA256', '91819424'],
  [1234567890, 'SHA512', '93441116'],
  [2000000000, 'SHA1', '69279037'],
  [2000000000, 'SHA256', '90698825'],
  [2000000000, 'SHA512', '38618901'],
  [20000000000, 'SHA1', '65353130'],
  [20000000000, 'SHA256', '77737706'],
  [20000000000, 'SHA512', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(vectors)(
    'at %i s with %s the code is %s, from an otpauth URI carrying the base32 seed',
    (seconds, algorithm, expected) => {
      const secret = base32Encode(Buffer.from(seeds[algorithm], 'ascii'));
      const key = parseTotp(
        `otpauth://totp/Proctor:ada@shop.test?secret=${secret}&issuer=Proctor&algorithm=${algorithm}&digits=8&period=30`,
      );
      expect(totpCode(key, seconds * 1000)).toBe(expected);
    },
  );

  it('reads a bare base32 seed as SHA1, 6 digits, 30 s, ignoring spaces and case', () => {
    const secret = base32Encode(Buffer.from(seeds.SHA1, 'ascii'))
      .toLowerCase()
      .replace(/(.{4})/g, '$1 ');
    const key = parseTotp(secret);
    expect(key).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30 });
    // The RFC's 8-digit code, last six digits: the same HMAC truncated to 6.
    expect(totpCode(key, 59_000)).toBe('287082');
  });

  it.each([
    ['', /empty/],
    ['not base32!', /not base32/],
    ['JBSWY3DP', /too short/],
    ['otpauth://hotp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP', /only otpauth:\/\/totp/],
    ['otpauth://totp/x?issuer=a', /no secret/],
    ['otpauth://totp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP&algorithm=MD5', /SHA1, SHA256 or SHA512/],
    ['otpauth://totp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP&digits=4', /digits/],
    ['otpauth://totp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP&period=0', /period/],
  ])('refuses %j with a message saying why', (value, why) => {
    expect(totpProblem(value)).toMatch(why);
  });
});

describe('RunValues', () => {
  it('types the TOTP code current at each moment, and redacts the last one typed', () => {
    let now = 59_000;
    const seed = base32Encode(Buffer.from(seeds.SHA1, 'ascii'));
    const values = new RunValues(
      { configs: { OTP: seed, USER: 'ada', PASSWORD: 'hunter22' }, secretNames: ['PASSWORD'], totpNames: ['OTP'] },
      () => now,
    );
    expect(values.resolve('{{USER}}:{{OTP}}')).toBe('ada:287082');
    expect(values.secrets()).toEqual({ PASSWORD: 'hunter22', OTP: '287082' });
    now = 1111111109_000;
    expect(values.resolve('{{OTP}}')).toBe('081804');
    expect(values.secrets().OTP).toBe('081804');
  });

  it('resolves run variables set by earlier steps and reports unknown names', () => {
    const values = new RunValues({ configs: { A: 'a' } });
    expect(values.missing('{{A}} {{ORDER_ID}}')).toEqual(['ORDER_ID']);
    expect(values.resolve('{{A}}-{{ORDER_ID}}')).toBe('a-{{ORDER_ID}}');
    values.set('ORDER_ID', '42');
    values.set('TOKEN', 'tok-secret', { secret: true });
    expect(values.missing('{{A}} {{ORDER_ID}}')).toEqual([]);
    expect(values.resolve('/orders/{{ORDER_ID}}?t={{TOKEN}}')).toBe('/orders/42?t=tok-secret');
    expect(values.secrets()).toEqual({ TOKEN: 'tok-secret' });
    expect(values.names()).toEqual(['A', 'ORDER_ID', 'TOKEN']);
  });
});
