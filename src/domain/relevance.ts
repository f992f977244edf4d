// Which catalogue tests a change is most likely about, when there are more than a prompt can list: each test is
// scored by the words it shares with the change (its title, description, reviewer context, changed paths and the
// diff the model reads), rarer words counting more, so "checkout" outweighs "user" in a shop's catalogue.
// Words are split the way code names things: `CheckoutForm.tsx` and `src/checkout/express-shipping` say
// checkout, form, express, shipping. Pure and deterministic: ties keep the catalogue's own order.

const stopWords = new Set(
  'the and for with that this from into then than when what your you are was were has have not but all any can out its they them their there these those will would should could '
    .concat(
      'test tests user users page click see sees open add new use uses using able shows show src lib app apps index file files tsx jsx ts js css html json diff',
    )
    .split(' '),
);

/** The words of a text, lower-cased; camelCase, snake_case, kebab-case and paths split into their parts. */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  const spaced = text.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  for (const raw of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 3 || stopWords.has(raw) || /^\d+$/.test(raw)) continue;
    // A light plural: "orders" and "order" are one word.
    words.add(raw.length > 4 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
  return words;
}

/**
 * The `limit` tests that share the most (rarity-weighted) words with `changeText`, in that order; the rest are
 * left out. With no more tests than `limit`, the catalogue as it is.
 */
export function mostRelevant<T>(tests: T[], textOf: (test: T) => string, changeText: string, limit: number): T[] {
  if (tests.length <= limit) return tests;
  const change = wordsOf(changeText);
  const testWords = tests.map((t) => wordsOf(textOf(t)));
  // Inverse document frequency over the catalogue: a word in every test tells nothing.
  const frequency = new Map<string, number>();
  for (const words of testWords)
    for (const w of words) if (change.has(w)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const weight = (w: string) => Math.log(1 + tests.length / frequency.get(w)!);
  const scored = tests.map((test, index) => {
    let score = 0;
    for (const w of testWords[index]!) if (change.has(w)) score += weight(w);
    return { test, index, score };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, limit).map((s) => s.test);
}
