import { describe, expect, it } from 'vitest';
import { buildDiscoveryMap, diffDiscoveryMaps, type MapSourcePage } from '../../src/domain/discovery-map.js';
import type { DiscoveredForm } from '../../src/domain/discovery.js';
import { form, page as pageWith, patternOf } from '../support/discovery-map-pages.js';
import { hasNews, newsOf, readNotify } from '../../src/domain/discovery-news.js';
import { renderDiscoveryNews } from '../../src/notify/discovery-news-message.js';

// The news of a scheduled discovery (issue 34, item 5): what is new since the previous completed discovery, read
// from the diff of the two maps, and the message that says it.

/** A page at `path` with these forms. */
const page = (path: string, forms: DiscoveredForm[] = []) => pageWith(path, { forms });
const map = (pages: MapSourcePage[]) => buildDiscoveryMap(pages, patternOf);
const ctx = {
  applicationName: 'app-shop_x',
  discoveryShortId: 'disc_new',
  previousShortId: 'disc_old',
  diffPath: '/v1/d',
};

describe('discovery news', () => {
  const before = map([page('/'), page('/orders/1', [form('Note', ['text'])])]);

  it('is the patterns and forms added, not the removed or changed ones', () => {
    const after = map([
      page('/orders/2', [form('Note', ['text', 'when'])]), // the same form, changed: not news
      page('/returns', [form('Return', ['reason'])]), // a new pattern with a new form
      page('/orders/3', [form('Note', ['text', 'when']), form('Cancel', ['why'])]), // a new form on a known pattern
    ]);
    const news = newsOf(diffDiscoveryMaps(before, after));
    expect(news).toEqual({
      patterns: ['/returns'],
      forms: [
        { pattern: '/orders/{id}', name: 'Cancel' },
        { pattern: '/returns', name: 'Return' },
      ],
    });
    expect(hasNews(news)).toBe(true);
    // Only removals (the home page went) and nothing added: no news.
    expect(hasNews(newsOf(diffDiscoveryMaps(before, map([page('/orders/1', [form('Note', ['text'])])]))))).toBe(false);
    expect(hasNews(newsOf(diffDiscoveryMaps(before, before)))).toBe(false);
  });

  it('says what is new in every channel, escaped, bounded, with where to read the whole diff', () => {
    const patterns = Array.from({ length: 30 }, (_, i) => `/p${i}/<b>&`);
    const rendered = renderDiscoveryNews({ patterns, forms: [{ pattern: '/p0/<b>&', name: 'Order "now"' }] }, ctx);
    expect(rendered.subject).toBe('Discovery of app-shop_x: 30 new page pattern(s), 1 new form(s)');
    for (const text of [rendered.text, rendered.slack.text]) {
      expect(text).toContain('Discovery disc_new found what discovery disc_old did not have:');
      expect(text).toContain('and 11 more'); // 31 items, 20 listed
      expect(text).toContain('The whole diff: GET /v1/d');
    }
    expect(rendered.text).toContain('- Page /p0/<b>&');
    expect(rendered.text).not.toContain('/p20/');
    expect(rendered.html).toContain('<li>Page /p0/&lt;b&gt;&amp;</li>');
    expect(rendered.html).not.toContain('<b>&');
    expect(rendered.slack.text).toContain('• Page /p0/&lt;b&gt;&amp;');
  });

  it('reads the stored targets, and notifies nobody from what it cannot read', () => {
    const slack = { webhookUrl: 'https://hooks.test/x', channel: '#qa' };
    expect(readNotify({ emails: ['a@b.test'], slack })).toEqual({ emails: ['a@b.test'], slack });
    expect(readNotify(JSON.stringify({ emails: ['a@b.test'] }))).toEqual({ emails: ['a@b.test'], slack: null });
    for (const junk of [null, undefined, 'not json', 42, { emails: 'a@b.test', slack: { webhookUrl: 7 } }])
      expect(readNotify(junk)).toEqual({ emails: [], slack: null });
  });
});
