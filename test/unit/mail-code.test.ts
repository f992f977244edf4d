import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeShape, extractCode, extractLink, mailCode } from '../../src/domain/inbox.js';
import { authMails, codelessMails } from '../support/auth-mails.js';

// The code and the link a wait_for_email step takes, from mails written after real auth systems' templates, from
// mails that carry none (the right answer is none), and from generated codes of every shape in template sentences.

describe('codes and links as auth systems mail them', () => {
  it.each(authMails.map((m) => [m.name, m] as const))('%s', (_, mail) => {
    expect(mailCode(mail) ?? null).toBe(mail.code ?? null);
    if (mail.link) expect(extractLink(mail)).toBe(mail.link);
    // The HTML part alone (a client that reads only it) gives the same code.
    if (mail.html && mail.code) expect(mailCode({ text: '', html: mail.html })).toBe(mail.code);
    // The recorded shape takes the same code back; another shape finds none.
    if (mail.code) {
      expect(mailCode(mail, codeShape(mail.code))).toBe(mail.code);
      expect(mailCode(mail, codeShape(mail.code) === '9999' ? '99999999' : '9999')).toBeUndefined();
    }
  });

  it.each(codelessMails.map((m) => [m.name, m] as const))('%s holds no code', (_, mail) => {
    expect(mailCode(mail)).toBeUndefined();
  });

  it.each([
    ['AAAA-AAAA', 'CNSV-HCXK'],
    ['999999', '482913'],
    ['999 999', '123 456'],
    ['999-999', '123-456'],
    ['AAAA9999', 'ABCD1234'],
    ['A9A9A9', 'A1B2C3'],
    ['AAAAAA', 'QWRTPX'],
  ])('records %s for %s', (shape, code) => {
    expect(codeShape(code)).toBe(shape);
    expect(extractCode(`Your code is ${code}.`)).toBe(code);
  });

  it.each([
    ['Ihr Bestätigungscode lautet: 482913. Er ist 10 Minuten gültig.', '482913'],
    ['Votre code de vérification : 551 204', '551 204'],
    ['Tu código de acceso es 7731', '7731'],
    ['Ship to: 1 Main St, Postcode 94105. Barcode 88812345.', undefined],
  ])('reads codes of other languages too: %j -> %s', (text, code) => {
    expect(extractCode(text)).toBe(code);
  });

  it('takes one group of capitals on its own line only under a line that announces a code', () => {
    expect(extractCode('Your login code:\n\nQWRTPX\n\nThanks,\nACME')).toBe('QWRTPX');
    expect(extractCode('Your code expires soon.\n\nQWRTPX')).toBeUndefined();
  });

  it('with a shape, takes the code of that shape over a nearer one of another', () => {
    const text = 'Your verification code: 482913\n\nBackup code:\n\nCNSV-HCXK';
    expect(extractCode(text)).toBe('482913');
    expect(extractCode(text, 'AAAA-AAAA')).toBe('CNSV-HCXK');
    expect(extractCode(text, '999 999')).toBeUndefined();
  });

  it.each([
    ['Thanks,\n\nHello\n\nAcme\n\nJane Smith', 'ordinary words on their own lines'],
    ['Your code expires in 15 minutes.\n\nWELCOME\n\nCall 0800 123 456.', 'an upper-case heading, a phone number'],
    ['Verification (est. 2019): see https://acme.example/verify/4821937', 'a year, a number in a link'],
    ['Your PIN was changed on 2024-05-01 at 10:30. Total $1999.00, 20% off.', 'a date, a time, a price, a percentage'],
    ['Your order 482913 is confirmed. Order #771234.', 'order numbers'],
    ['Code: 55 12 — nothing long enough', 'too short'],
    [
      'Sign in at http://acme.test/login?id=9f8e7d6c5b4a and use jane482913@acme.test',
      'hex ids in links, digits in an address',
    ],
  ])('takes no code from %j (%s)', (text) => {
    expect(extractCode(text)).toBeUndefined();
  });
});

const allauthAlphabet = 'ABCDFGHJKLMNPQRSTVWXY345679'.split('');
const upper = 'ABCDEFGHJKLMNPQRSTUVWXYZ'.split('');
const digit = '0123456789'.split('');
const chars = (from: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...from), { minLength: min, maxLength: max }).map((a) => a.join(''));
const groups = (from: string[], size: number, count: number, sep: string) =>
  fc.array(chars(from, size, size), { minLength: count, maxLength: count }).map((g) => g.join(sep));

/** One arbitrary per code style mails use; none a year, each with a letter where it mixes. */
const codes = fc.oneof(
  chars(digit, 4, 8).filter((c) => !/^(19|20)\d\d$/.test(c)),
  groups(digit, 3, 2, ' '),
  groups(digit, 3, 2, '-'),
  groups(digit, 4, 2, '-').filter((c) => !/^(19|20)\d\d-(19|20)\d\d$/.test(c)),
  groups(upper, 4, 2, '-'),
  groups(allauthAlphabet, 4, 2, '-').filter((c) => /[A-Z]/.test(c)),
  fc.tuple(chars(upper, 3, 5), chars(digit, 3, 5)).map(([a, b]) => a + b),
  fc
    .array(fc.tuple(fc.constantFrom(...upper), fc.constantFrom(...digit)), { minLength: 3, maxLength: 5 })
    .map((p) => p.map(([a, b]) => a + b).join('')),
);

const sentences = [
  (c: string) => `Your verification code is ${c}. It expires in 10 minutes.`,
  (c: string) => `${c} is your Acme verification code`,
  (c: string) => `Hello from Acme!\n\nYour sign-in code is listed below.\n\n${c}\n\nThanks,\nThe Acme Team`,
  (c: string) => `Enter this one-time passcode: ${c}\nOrder 48213 ships Monday. Call 0800 123 456.`,
  (c: string) => `<p>Use the code below to log in:</p><p><strong>${c}</strong></p><p>© 2024 Acme</p>`,
];

const prose = fc
  .array(
    fc.constantFrom(
      'Hello',
      'Thanks,',
      'Jane',
      'Acme',
      'ACME',
      'your',
      'account',
      'is',
      'ready',
      'WELCOME',
      'team',
      'the',
      'on',
      'at',
      '10:30',
      '2024',
      '$19.99',
      '20%',
      'Order 48213',
      'ticket #8812',
      'call 0800 123 456',
      'https://acme.example/a/9f8e7d6c5b',
      '12 May 2024',
      '\n',
      '\n\n',
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((w) => w.join(' '));

describe('generated codes and prose', () => {
  it('finds every generated code in every template sentence, and its shape takes it back', () => {
    fc.assert(
      fc.property(codes, fc.constantFrom(...sentences), (code, sentence) => {
        const text = sentence(code);
        const mail = text.startsWith('<') ? { text: '', html: text } : { text, html: '' };
        expect(mailCode(mail)).toBe(code);
        expect(mailCode(mail, codeShape(code))).toBe(code);
      }),
      { numRuns: 400 },
    );
  });

  it('takes a random code of a letter alphabet by the shape of another: same groups, letters or digits anywhere', () => {
    const allauthCode = groups(allauthAlphabet, 4, 2, '-').filter((c) => /[A-Z]/.test(c));
    fc.assert(
      fc.property(allauthCode, allauthCode, (burnIn, later) => {
        expect(extractCode(`Your sign-in code is listed below.\n\n${later}\n`, codeShape(burnIn))).toBe(later);
      }),
      { numRuns: 400 },
    );
    // A shape of digits stays digits, and the groups must agree.
    expect(extractCode('Your code is AB12CD.', '999999')).toBeUndefined();
    expect(extractCode('Your code is 1234-5678.', 'AAAA-AAAA')).toBe('1234-5678');
    expect(extractCode('Your code is ABCD-EFGH.', 'AAA-AAA')).toBeUndefined();
    expect(extractCode('Your code is 123 456.', '999-999')).toBeUndefined();
  });

  it('never takes a word, a year, a price, a time, a phone or an order number of plain prose', () => {
    fc.assert(
      fc.property(prose, (text) => {
        expect(extractCode(text)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});
