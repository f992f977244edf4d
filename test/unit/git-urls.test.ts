import { describe, expect, it } from 'vitest';
import { parseMergeRequestUrl } from '../../src/git/urls.js';
import { InvalidError } from '../../src/domain/errors.js';

describe('parseMergeRequestUrl', () => {
  // GitHub pull requests on github.com and on an Enterprise host; GitLab merge requests with nested groups, on
  // gitlab.com and self-managed hosts.
  it.each([
    ['github', 'https://github.com/acme/shop/pull/7', 'acme/shop', 7],
    ['github', 'https://ghe.acme.internal/platform/web.app/pull/1234/files?diff=split#top', 'platform/web.app', 1234],
    ['github', 'http://127.0.0.1:8080/o-1/r_2/pull/3/', 'o-1/r_2', 3],
    ['gitlab', 'https://gitlab.com/acme/shop/-/merge_requests/3', 'acme/shop', 3],
    ['gitlab', 'https://git.acme.dev/acme/web/sub.group/shop/-/merge_requests/42/diffs', 'acme/web/sub.group/shop', 42],
  ] as const)('reads %s %s', (provider, url, repository, number) => {
    expect(parseMergeRequestUrl(provider, url)).toEqual({ provider, repository, number });
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
