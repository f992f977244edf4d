import { describe, expect, it } from 'vitest';
import { framePrefix } from '../../src/domain/locator-frames.js';

describe('framePrefix', () => {
  it('is the frame chain up to the last hop, whatever quotes the selectors hold', () => {
    expect(framePrefix("locator('iframe[title=\"Pay\"]').contentFrame().getByRole('button', { name: 'Pay' })")).toBe(
      'locator(\'iframe[title="Pay"]\').contentFrame().',
    );
    expect(framePrefix("frameLocator('#outer').locator('iframe').contentFrame().getByText('Hi')")).toBe(
      "frameLocator('#outer').locator('iframe').contentFrame().",
    );
    expect(framePrefix("frameLocator('#card').getByLabel('Card')")).toBe("frameLocator('#card').");
  });
  it('is empty for an element of the page itself', () => {
    expect(framePrefix("getByRole('button', { name: 'contentFrame()' })")).toBe('');
    expect(framePrefix("getByTestId('pay')")).toBe('');
  });
});
