// Reading a one-time code out of a mail the way a person does: a token that stands on its own line, or that a word
// like "code" or "verification" introduces, shaped like a code (digits, upper-case letters, or both, in one group
// or in equal groups joined by a dash: `482913`, `123 456`, `CNSV-HCXK`, `A1B2C3`). Pure; the replay, the burn-in,
// the API and the exported spec (through the API) all read codes with these rules.

/** Words that introduce a code. Weak ones ("sign in", "verify") also head mails that carry only a link. */
// `\w*code` also reads compounds ("Bestätigungscode", "Zugangscode"); Spanish and Italian name theirs otherwise.
const strongWords =
  /\b(?:\w*codes?|c[oó]digo|codice|one[- ]?time|otp|pin|verification|security|2fa|two[- ]factor|mfa|authenticat\w*)\b/gi;
const weakWords = /\b(?:verify|confirm|token|sign[- ]?in|log[- ]?in|login)\b/gi;
/** A number after one of these labels is that thing's number, not a code ("Order 48213", "call 555 1234"). */
const labelBefore =
  /\b(?:order|invoice|receipt|ticket|case|request|ref|reference|booking|reservation|confirmation|account|acct|customer|member|membership|tracking|phone|tel|telephone|mobile|fax|call|room|suite|unit|box|zip|zipcode|postal|postcode|barcode|flight|id|version)\s*(?:no\.?|number|nr\.?|#|id)?\s*[:#.]?\s*$/i;
/** A currency, a percentage or a unit after it makes a number a quantity. */
const quantityAfter =
  /^\s?(?:%|€|£|\$|¥|usd|eur|gbp|dollars?|euros?|kb|mb|gb|px|km|kg|ms|min(?:ute)?s?|h(?:ours?)?|days?)\b/i;

/** A code's shape: letters A, digits 9, separators kept (`CNSV-HCXK` → `AAAA-AAAA`). */
export function codeShape(code: string): string {
  return code.replace(/[A-Za-z]/g, 'A').replace(/\d/g, '9');
}

/**
 * Whether a code is of a recorded shape: the same groups and separators; a shape of digits takes digits only, a
 * shape with letters takes letters or digits anywhere (the alphabets of letter codes hold digits too: allauth mails
 * `CNSV-HCXK` one day and `K7PX-3MQR` the next, both `AAAA-AAAA` in kind).
 */
export function matchesShape(code: string, shape: string): boolean {
  const actual = codeShape(code);
  if (actual.length !== shape.length) return false;
  const digitsOnly = !shape.includes('A');
  return [...shape].every((c, i) => (/[A9]/.test(c) && !digitsOnly ? /[A9]/.test(actual[i]!) : actual[i] === c));
}

/** A shape as `codeShape` writes one: 1–12 A/9 per group, at most four groups joined by one dash or space. */
export const codeShapePattern = /^[A9]{1,12}(?:[- ][A9]{1,12}){0,3}$/;

/**
 * Whether a token is shaped like a code at all, before its context is weighed. Digits: one group of 4–8, or 2–3
 * equal groups of 3–4 joined by a dash or a space. With letters (upper case only: lower case is prose or a hex id):
 * one group of 6–10, or 2–3 equal groups of 3–5 joined by a dash.
 */
function codeLike(token: string): 'digits' | 'letters' | 'mixed' | undefined {
  const groups = token.split(/[- ]/);
  const chars = groups.join('');
  const kind = /^\d+$/.test(chars)
    ? 'digits'
    : /^[A-Z]+$/.test(chars)
      ? 'letters'
      : /^[A-Z0-9]+$/.test(chars)
        ? 'mixed'
        : undefined;
  if (!kind) return undefined;
  if (groups.length === 1)
    return (kind === 'digits' ? chars.length >= 4 && chars.length <= 8 : chars.length >= 6 && chars.length <= 10)
      ? kind
      : undefined;
  if (groups.length > 3 || groups.some((g) => g.length !== groups[0]!.length)) return undefined;
  if (kind !== 'digits' && token.includes(' ')) return undefined;
  const size = groups[0]!.length;
  return size >= 3 && size <= (kind === 'digits' ? 4 : 5) ? kind : undefined;
}

/** The text a person reads: links and addresses out (their ids are not codes), HTML as lines. */
export function readableText(text: string): string {
  return text.replace(/\b(?:https?:\/\/|www\.)[^\s<>"]+/gi, ' ').replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, ' ');
}

/** The HTML part as lines of text: blocks become lines, other tags spaces, the usual entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(style|script|head|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(
      /<\/?(?:p|div|br|h[1-6]|tr|td|th|li|ul|ol|table|tbody|thead|section|article|header|footer|center|blockquote|pre|hr)\b[^>]*>/gi,
      '\n',
    )
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|&#160;/gi, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&amp;/g, '&');
}

interface Candidate {
  code: string;
  index: number;
  /** Characters to the nearest word that introduces it (weak words count as further away). */
  distance: number;
}

/**
 * The mail's one-time code, or undefined when it holds none. With `shape` (what a burn-in recorded), only a code of
 * that shape. Among several, the one nearest a code word, then the first.
 */
export function extractCode(raw: string, shape?: string): string | undefined {
  // An auth mail's code is near its top; a long newsletter is not read to its end (nor made to cost much).
  const text = readableText(raw.slice(0, maxReadChars));
  const words = [...wordsAt(text, strongWords, 0), ...wordsAt(text, weakWords, 60)];
  const candidates: Candidate[] = [];
  // A maximal token: not glued to a word, a price, a time, a decimal, an id (#, @, /) or a further group of digits.
  const tokens = [
    ...text.matchAll(
      /(?<![\w$€£¥#@+/\\]|\w-|\d[.:,]|\d )([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)(?![\w@/\\]|-\w|[.,:]\d| \d)/g,
    ),
    ...text.matchAll(/(?<![\w$€£¥#@+/\\]|\w-|\d[.:,]|\d )(\d{3,4}(?: \d{3,4}){1,2})(?![\w@/\\]|-\w|[.,:]\d| \d)/g),
  ];
  let weighed = 0;
  for (const m of tokens) {
    const code = m[1]!;
    const kind = codeLike(code);
    if (!kind || (shape && !matchesShape(code, shape))) continue;
    if (++weighed > maxCandidates) break;
    const index = m.index;
    const end = index + code.length;
    const lineStart = text.lastIndexOf('\n', index - 1) + 1;
    const lineEnd = text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end);
    const before = text.slice(Math.max(lineStart, index - 60), index);
    const after = text.slice(end, Math.min(lineEnd, end + 60));
    if (labelBefore.test(before) || quantityAfter.test(after)) continue;
    const standsAlone =
      /^[\s*_>"'`]*$/.test(text.slice(lineStart, index)) && /^[\s*_"'`.]*$/.test(text.slice(end, lineEnd));
    // Near: a code word ends up to 80 characters before it, or starts up to 40 after it, within its paragraph.
    const near = (w: WordAt) =>
      (w.end <= index && index - w.end <= 80 && !/\n\s*\n/.test(text.slice(w.end, index))) ||
      (w.start >= end && w.start - end <= 40 && !text.slice(end, w.start).includes('\n'));
    const introduced = words.some(near);
    // A year (or a span of them) is a code only right after its word ("Your PIN is 2019"), not near one ("Verification (est. 2019)").
    if (
      /^(?:19|20)\d{2}(?:[- ](?:19|20)\d{2})*$/.test(code) &&
      !words.some(
        (w) =>
          !w.weak &&
          w.end <= index &&
          index - w.end <= 12 &&
          /^\s*(?:is|was)?\s*:?\s*$/i.test(text.slice(w.end, index)),
      )
    )
      continue;
    // Upper-case words stand alone too (a heading, a signature): one group of letters on its own line counts only
    // under a line that announces it ("Your code:").
    const announced = standsAlone && /(?:codes?|passcodes?|otp|pin)\b[^\n]*:$/i.test(previousLine(text, lineStart));
    const accepted = kind === 'letters' && !code.includes('-') ? introduced || announced : introduced || standsAlone;
    if (!accepted) continue;
    let distance = Infinity;
    for (const w of words)
      distance = Math.min(distance, (w.end <= index ? index - w.end : Math.max(0, w.start - end)) + w.penalty);
    candidates.push({ code, index, distance });
  }
  candidates.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return candidates[0]?.code;
}

const maxReadChars = 200_000;
const maxCandidates = 200;

/** The last non-blank line before `lineStart`, trimmed at its end. */
function previousLine(text: string, lineStart: number): string {
  let last = lineStart - 1;
  while (last >= 0 && /\s/.test(text[last]!)) last--;
  return text.slice(text.lastIndexOf('\n', last) + 1, last + 1);
}

interface WordAt {
  start: number;
  end: number;
  penalty: number;
  weak: boolean;
}

function wordsAt(text: string, pattern: RegExp, penalty: number): WordAt[] {
  return [...text.matchAll(pattern)].map((w) => ({
    start: w.index,
    end: w.index + w[0].length,
    penalty,
    weak: penalty > 0,
  }));
}
