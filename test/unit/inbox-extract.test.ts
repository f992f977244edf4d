import { describe, expect, it } from 'vitest';
import { extractCode, extractLink, matchesMail } from '../../src/domain/inbox.js';

describe('what a wait_for_email step takes from a mail', () => {
  it.each([
    ['Your verification code is 482913. It expires in 15 minutes. Call 0800 123 456 for help.', '482913'],
    ['Acme (est. 2019) — use 7731 to sign in', '7731'],
    ['Order 12345, total $1999.00. Your one-time code: AB12CD', 'AB12CD'],
    ['Meeting at 10:30, room 4411-2. Security code 90817265', '90817265'],
    ['Code: 55 12 — nothing long enough', undefined],
  ])('%s -> %s', (text, code) => {
    expect(extractCode(text)).toBe(code);
  });

  it('takes the link matching a pattern, else the likely action link, never unsubscribe or privacy', () => {
    const mail = {
      text: 'See https://acme.test/privacy and https://acme.test/unsubscribe?u=1',
      html: '<a href="https://acme.test/privacy">Privacy</a> <a href="https://acme.test/home">Home</a> <a href="https://acme.test/auth/verify?t=abc&amp;x=1">Verify</a>',
    };
    expect(extractLink(mail)).toBe('https://acme.test/auth/verify?t=abc&x=1');
    expect(extractLink(mail, '/home')).toBe('https://acme.test/home');
    expect(extractLink(mail, '/nowhere')).toBeUndefined();
    expect(extractLink({ text: 'no links here', html: '' })).toBeUndefined();
  });

  it('matches subject and sender by part, in any case', () => {
    const mail = { subject: 'Verify your Acme account', from: 'Acme Accounts <no-reply@acme.test>' };
    expect(matchesMail(mail, { subject: 'verify', from: 'acme.test' })).toBe(true);
    expect(matchesMail(mail, { subject: 'Reset' })).toBe(false);
  });
});
