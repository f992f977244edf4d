// Steps inside iframes carry their frame chain in the locator, as Playwright writes it:
// `locator('iframe[title="Payment"]').contentFrame().getByRole('textbox', { name: 'Card number' })`.
// Replay and export follow the chain (cross-origin frames included); the parser in locators.ts allows it.

// Greedy: up to the last frame hop. Quoted arguments may hold anything but their own unescaped quote.
const chain = /^(.*(?:\.contentFrame\(\)|frameLocator\((?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\)))\./s;

/** The frame chain an expression starts with, ending in a dot (`locator('iframe').contentFrame().`), or ''. */
export function framePrefix(expression: string): string {
  const m = chain.exec(expression);
  return m ? `${m[1]}.` : '';
}
