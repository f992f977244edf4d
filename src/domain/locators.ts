// Locator expressions are stored as Playwright source text (`getByRole('button', { name: 'Save' })`) so an
// export is a copy, and replay parses them with this small parser: nothing recorded is ever evaluated as code.
// Pure text rules; src/browser/locators.ts builds the Playwright locator from what the parser returns.

type Value = string | number | boolean | RegExp | { [key: string]: Value } | undefined;
export interface LocatorCall {
  method: string;
  args: Value[];
}

const allowed = new Set([
  'getByRole',
  'getByText',
  'getByLabel',
  'getByPlaceholder',
  'getByTestId',
  'getByAltText',
  'getByTitle',
  'locator',
  'contentFrame',
  'frameLocator',
  'first',
  'last',
  'nth',
  'filter',
]);

export class LocatorSyntaxError extends Error {
  override name = 'LocatorSyntaxError';
}

export function parseLocator(expression: string): LocatorCall[] {
  let i = 0;
  const src = expression.trim();
  const fail = (msg: string): never => {
    throw new LocatorSyntaxError(`${msg} at ${i} in ${JSON.stringify(expression)}`);
  };
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const ident = (): string => {
    const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i));
    if (!m) return fail('expected a name');
    i += m[0].length;
    return m[0];
  };
  const string = (): string => {
    const quote = src[i]!;
    i++;
    let out = '';
    while (i < src.length && src[i] !== quote) {
      if (src[i] === '\\') {
        const next = src[i + 1];
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
        i += 2;
      } else out += src[i++];
    }
    if (src[i] !== quote) fail('unterminated string');
    i++;
    return out;
  };
  const regex = (): RegExp => {
    i++;
    let body = '';
    let inClass = false;
    while (i < src.length && (src[i] !== '/' || inClass)) {
      if (src[i] === '\\') {
        body += src[i]! + (src[i + 1] ?? '');
        i += 2;
        continue;
      }
      if (src[i] === '[') inClass = true;
      if (src[i] === ']') inClass = false;
      body += src[i++];
    }
    if (src[i] !== '/') fail('unterminated regex');
    i++;
    const flags = /^[dgimsuy]*/.exec(src.slice(i))![0];
    i += flags.length;
    return new RegExp(body, flags);
  };
  const value = (): Value => {
    ws();
    const c = src[i];
    if (c === "'" || c === '"' || c === '`') return string();
    if (c === '/') return regex();
    if (c === '{') return object();
    const num = /^-?\d+(\.\d+)?/.exec(src.slice(i));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    const word = ident();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'undefined') return undefined;
    return fail(`unexpected ${word}`);
  };
  const object = (): { [key: string]: Value } => {
    i++;
    const out: { [key: string]: Value } = {};
    for (;;) {
      ws();
      if (src[i] === '}') {
        i++;
        return out;
      }
      const key = src[i] === "'" || src[i] === '"' ? string() : ident();
      ws();
      if (src[i] !== ':') fail('expected :');
      i++;
      out[key] = value();
      ws();
      if (src[i] === ',') i++;
    }
  };

  const calls: LocatorCall[] = [];
  ws();
  if (src.startsWith('page.')) i += 5;
  for (;;) {
    ws();
    const method = ident();
    if (!allowed.has(method)) fail(`method ${method} is not allowed`);
    ws();
    if (src[i] !== '(') fail('expected (');
    i++;
    const args: Value[] = [];
    ws();
    while (src[i] !== ')') {
      args.push(value());
      ws();
      if (src[i] === ',') i++;
      else if (src[i] !== ')') fail('expected , or )');
      ws();
    }
    i++;
    calls.push({ method, args });
    ws();
    if (i >= src.length) break;
    if (src[i] !== '.') fail('expected .');
    i++;
  }
  return calls;
}

/** A JS single-quoted string literal, as Playwright writes them. */
export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
