// A Playwright trace records what each action typed and every request's headers: a secret config filled into a
// password field, an environment's basic-auth header. Before a trace is stored, every secret in its text entries is
// replaced, so a trace that anyone with the run's link can open holds none.
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';

const mask = '***';
// Headers that carry credentials whatever their value: the basic-auth header is base64, not the password.
const credentialHeader = /("name":\s*"(?:authorization|proxy-authorization)",\s*"value":\s*")((?:[^"\\]|\\.)*)(")/gi;

const html = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The forms a value takes in a trace: as is, JSON-escaped, URL-encoded, HTML-escaped (DOM snapshots), and combined. */
function spellings(secret: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  return [...new Set([secret, json(secret), encodeURIComponent(secret), html(secret), json(html(secret))])];
}

/** `text` with every secret (of 3 characters or more, as redact() in snapshot.ts) and every credential header masked. */
export function redactText(text: string, secrets: string[]): string {
  let out = text.replace(credentialHeader, `$1${mask}$3`);
  for (const secret of secrets.filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    for (const spelling of spellings(secret)) out = out.split(spelling).join(mask);
  }
  return out;
}

// Screenshots and fonts are binary; everything else in a trace (events, network log, DOM snapshots, sources) is text.
const binary = /\.(jpe?g|png|webp|gif|woff2?|ttf|ico|zip|wasm)$/i;

// The screencast (a JPEG of the page every few frames) shows a secret typed into a text field as pixels, which no
// text replacement reaches; its frames and the events naming them go when a secret was typed.
const screencastFrame = /^screencast\//;
const screencastEvent = /^\{"type":"screencast-frame"/;

/**
 * The trace archive with its text entries redacted (entries without a secret are kept byte for byte) and, with
 * `dropScreencast`, without its screencast: the viewer still shows every step from its DOM snapshots (redacted).
 *
 * Every run's trace passes through here, in the worker's event loop, so it does no more than the change needs: an
 * archive with nothing to mask (most runs) is returned as it came, and a rewritten one stores its screenshots and
 * fonts as they are (already compressed: deflating them again cost most of a rewrite's CPU, about 0.2 s a trace).
 */
export function redactTrace(zip: Uint8Array, secrets: string[], opts: { dropScreencast?: boolean } = {}): Uint8Array {
  const frames = new Set<string>();
  // One pass over the names: the screencast's frames are noted (never inflated), the text entries inflated.
  const texts = unzipSync(zip, {
    filter: (file) => {
      if (opts.dropScreencast && screencastFrame.test(file.name)) frames.add(file.name);
      return !binary.test(file.name);
    },
  });
  const redacted = new Map<string, Uint8Array>();
  for (const [name, bytes] of Object.entries(texts)) {
    const text = strFromU8(bytes);
    let out = redactText(text, secrets);
    if (opts.dropScreencast && name.endsWith('.trace'))
      out = out
        .split('\n')
        .filter((line) => !screencastEvent.test(line))
        .join('\n');
    if (out !== text) redacted.set(name, strToU8(out));
  }
  if (redacted.size === 0 && frames.size === 0) return zip;

  const entries: Zippable = {};
  for (const [name, bytes] of Object.entries(unzipSync(zip))) {
    if (frames.has(name)) continue;
    entries[name] = binary.test(name) ? [bytes, { level: 0 }] : (redacted.get(name) ?? bytes);
  }
  return zipSync(entries, { level: 6 });
}
