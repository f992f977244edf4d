import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { redactText, redactTrace } from '../../src/browser/quality/trace-redaction.js';

describe('trace redaction', () => {
  const secret = 'p@ss "w<o>rd" & more';

  it('masks a secret in every spelling a trace holds it in, and credential headers whatever they carry', () => {
    const text = [
      `{"method":"fill","params":{"value":${JSON.stringify(secret)}}}`,
      `https://shop.test/login?pw=${encodeURIComponent(secret)}`,
      `<input __playwright_value_="p@ss &quot;w&lt;o&gt;rd&quot; &amp; more">`,
      `{"name":"Authorization","value":"Basic cWE6cHctMTIz"},{"name":"x-team","value":"qa"}`,
    ].join('\n');
    const out = redactText(text, [secret]);
    expect(out).not.toContain('w<o>rd');
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out).not.toContain('&quot;w&lt;o&gt;rd');
    expect(out).not.toContain('cWE6cHctMTIz');
    expect(out).toContain('{"name":"x-team","value":"qa"}');
    expect(out.match(/\*\*\*/g)).toHaveLength(4);
  });

  it('rewrites only the text entries of the archive, and leaves one without a secret as it was', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...strToU8(secret)]);
    const zip = zipSync({
      'trace.trace': strToU8(`typed ${secret}`),
      'trace.network': strToU8('nothing here'),
      'resources/shot.png': png,
    });
    const entries = unzipSync(redactTrace(zip, [secret, 'ab']));
    expect(strFromU8(entries['trace.trace']!)).toBe('typed ***');
    expect(strFromU8(entries['trace.network']!)).toBe('nothing here');
    expect(entries['resources/shot.png']).toEqual(png);
  });

  it('returns an archive with nothing to mask as it came, and drops the screencast and its events when asked', () => {
    const frame = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]);
    const zip = zipSync({
      'trace.trace': strToU8('{"type":"action"}\n{"type":"screencast-frame","sha1":"f.jpeg"}\n{"type":"after"}'),
      'screencast/page@1-2.jpeg': frame,
      'resources/font.woff2': frame,
    });
    expect(redactTrace(zip, [secret])).toBe(zip);

    const entries = unzipSync(redactTrace(zip, [secret], { dropScreencast: true }));
    expect(Object.keys(entries).sort()).toEqual(['resources/font.woff2', 'trace.trace']);
    expect(strFromU8(entries['trace.trace']!)).toBe('{"type":"action"}\n{"type":"after"}');
    expect(entries['resources/font.woff2']).toEqual(frame);
  });
});
