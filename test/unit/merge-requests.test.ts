import { describe, expect, it } from 'vitest';
import { missingDeployments, normalizeHandle, parseMention } from '../../src/domain/merge-requests.js';

describe('merge-request rules', () => {
  it('waits for every mapped environment, or for any deployment when nothing is mapped', () => {
    expect(missingDeployments(['preview', 'api-preview'], { preview: 'https://p.example' })).toEqual(['api-preview']);
    expect(missingDeployments(['preview'], { preview: 'https://p.example' })).toEqual([]);
    expect(missingDeployments([], {})).toEqual(['a deployment of the head commit']);
    expect(missingDeployments([], { production: 'https://x.example' })).toEqual([]);
  });

  it('takes a mention of the handle with a URL as a manual trigger, case-insensitively', () => {
    expect(parseMention('Please @Proctor test https://pr-12.preview.example.com/shop.', '@proctor')).toEqual({
      url: 'https://pr-12.preview.example.com/shop',
    });
    expect(parseMention('@PROCTOR http://127.0.0.1:4000', '@proctor')).toEqual({ url: 'http://127.0.0.1:4000' });
    expect(parseMention('@qa.bot go: https://x.example', '@qa.bot')).toEqual({ url: 'https://x.example' });
  });

  it('ignores comments without the handle, without a URL, or naming a longer handle', () => {
    expect(parseMention('looks good https://x.example', '@proctor')).toBeNull();
    expect(parseMention('@proctor please run again', '@proctor')).toBeNull();
    expect(parseMention('@proctor-bot https://x.example', '@proctor')).toBeNull();
    expect(parseMention('mail me at me@proctor https://x.example', '@proctor')).toBeNull();
  });

  it('stores handles with their @', () => {
    expect(normalizeHandle(' proctor ')).toBe('@proctor');
    expect(normalizeHandle('@qa.tech')).toBe('@qa.tech');
  });
});
