import { describe, expect, it } from 'vitest';
import { intentMatcher, intentWords } from '../../src/domain/discovery-intent.js';

// What an intent asks about, read from URLs: a word of the path or query that an intent word names (equal, or but
// for a plural ending). A matrix of intents against URLs, each row with the answer a person gives.
const origin = 'https://shop.test';
const rows: [intent: string, path: string, wanted: boolean][] = [
  ['the checkout', '/checkout', true],
  ['the checkout', '/checkout/shipping', true],
  ['the checkout', '/shop/checkouts/42', true],
  ['the checkout', '/cart', false],
  ['the checkout', '/check', false],
  ['orders and invoices', '/orders/17', true],
  ['orders and invoices', '/account/order-history', true],
  ['orders and invoices', '/billing/invoice?id=3', true],
  ['orders and invoices', '/products', false],
  ['the cart page', '/cart', true],
  ['the cart page', '/cartography', false],
  ['the cart page', '/pages/about', false],
  ['Einstellungen', '/einstellungen/profil', true],
  ['Réglages du compte', '/reglages', true],
  ['Réglages du compte', '/compte/securite', true],
  ['search', '/products?search=mug', true],
  ['search', '/products?q=search', true],
  ['user settings', '/users/3/settings', true],
  ['user settings', '/user%20settings', true],
  ['user settings', '/admin', false],
  ['delivery address', '/account/addresses', true],
];

describe('a discovery intent', () => {
  it.each(rows)('"%s" asks about %s: %s', (intent, path, wanted) => {
    expect(intentMatcher(intent)!(`${origin}${path}`)).toBe(wanted);
  });

  it('an intent of stop words and short words asks about nothing: the discovery goes breadth first', () => {
    for (const intent of ['', 'the', 'all the pages of the app', 'a b c', 'test flows']) {
      expect({ intent, words: intentWords(intent), matcher: intentMatcher(intent) }).toEqual({
        intent,
        words: [],
        matcher: undefined,
      });
    }
  });

  it('reads at most 20 distinct words, and a URL it cannot parse is not wanted', () => {
    const long = Array.from({ length: 60 }, (_, i) => `word${i} word${i}`).join(' ');
    expect(intentWords(long)).toHaveLength(20);
    expect(intentMatcher('checkout')!('not a url')).toBe(false);
  });
});
