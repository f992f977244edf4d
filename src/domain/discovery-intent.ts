// A discovery's intent ("the checkout", "orders and invoices") as an order of exploration: within a budget that
// cannot hold the whole site, the pages whose URL names what the team asked about are visited first. Read from the
// URL only (its path and query words): the workflow decides with what its visits report, and a link's words are
// the same on every page that links to it. Pure and deterministic, so the workflow may call it.

/** Words that say nothing about where to look. */
const stopWords = new Set(
  'the and for with from into page pages all any our your their its this that what which how test tests flow flows app site'.split(
    ' ',
  ),
);

const wordsOf = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3);

/** The words of an intent that can name a page (at most 20: an intent is at most 500 characters). */
export function intentWords(intent: string): string[] {
  return [...new Set(wordsOf(intent).filter((w) => !stopWords.has(w)))].slice(0, 20);
}

// One word names the other when they are equal or differ by a plural ending: "order" and "orders", "checkout" and
// "checkouts", "address" and "addresses". Not a prefix: "check" is not "checkout", nor "cart" "cartography".
const plural = (a: string, b: string): boolean => b === `${a}s` || b === `${a}es`;
const names = (word: string, token: string): boolean => word === token || plural(word, token) || plural(token, word);

/**
 * Whether a URL is one the intent asks about: a word of its path or query (decoded) that an intent word names.
 * Undefined for an intent without such words: the discovery then goes breadth first as without one.
 */
export function intentMatcher(intent: string): ((url: string) => boolean) | undefined {
  const words = intentWords(intent);
  if (words.length === 0) return undefined;
  return (url) => {
    let text: string;
    try {
      const parsed = new URL(url);
      text = decodeURIComponent(parsed.pathname + ' ' + parsed.search);
    } catch {
      return false;
    }
    const tokens = wordsOf(text);
    return tokens.some((token) => words.some((word) => names(word, token)));
  };
}
