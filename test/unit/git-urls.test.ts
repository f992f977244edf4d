import { describe, expect, it } from 'vitest';
import { parseMergeRequestUrl } from '../../src/git/urls.js';
import { InvalidError } from '../../src/domain/errors.js';

describe('parseMergeRequestUrl', () => {
  it('reads GitHub pull request URLs on github.com and on an Enterprise host', () => {
    expect(parseMergeRequestUrl('github', 'https://github.com/acme/shop/pull/7')).toEqual({
      provider: 'github',
      repository: 'acme/shop',
      number: 7,
    });
    expect(
      parseMergeRequestUrl('github', 'https://ghe.acme.internal/platform/web.app/pull/1234/files?diff=split#top'),
    ).toEqual({
      provider: 'github',
      repository: 'platform/web.app',
      number: 1234,
    });
    expect(parseMergeRequestUrl('github', 'http://127.0.0.1:8080/o-1/r_2/pull/3/')).toEqual({
      provider: 'github',
      repository: 'o-1/r_2',
      number: 3,
    });
  });

  it('reads GitLab merge request URLs with nested groups, on gitlab.com and self-managed hosts', () => {
    expect(parseMergeRequestUrl('gitlab', 'https://gitlab.com/acme/shop/-/merge_requests/3')).toEqual({
      provider: 'gitlab',
      repository: 'acme/shop',
      number: 3,
    });
    expect(
      parseMergeRequestUrl('gitlab', 'https://git.acme.dev/acme/web/sub.group/shop/-/merge_requests/42/diffs'),
    ).toEqual({
      provider: 'gitlab',
      repository: 'acme/web/sub.group/shop',
      number: 42,
    });
  });

  it.each([
    ['github', 'not a url'],
    ['github', 'ftp://github.com/acme/shop/pull/7'],
    ['github', 'https://github.com/acme/shop/issues/7'],
    ['github', 'https://github.com/acme/shop/pull/0'],
    ['github', 'https://github.com/acme/shop/pull/7x'],
    ['github', 'https://github.com/acme/pull/7'],
    ['github', 'https://github.com/acme/../pull/7'],
    ['github', 'https://gitlab.com/acme/shop/-/merge_requests/3'],
    ['gitlab', 'https://gitlab.com/acme/shop/merge_requests/3'],
    ['gitlab', 'https://gitlab.com/shop/-/merge_requests/3'],
    ['gitlab', 'https://gitlab.com/acme/shop/-/issues/3'],
    ['gitlab', 'https://gitlab.com/acme/shop/-/merge_requests/99999999999'],
    ['gitlab', 'https://github.com/acme/shop/pull/7'],
  ] as const)('refuses %s %s, naming prUrl', (provider, url) => {
    let error: unknown;
    try {
      parseMergeRequestUrl(provider, url);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidError);
    expect((error as Error).message).toMatch(/^prUrl: /);
    expect((error as Error).message).toContain(provider === 'github' ? '/pull/{number}' : '/-/merge_requests/{number}');
  });
});
