import { describe, expect, it } from 'vitest';
import { RefAliases } from '../../src/browser/record/snapshot-refs.js';
import { withRealRefs } from '../../src/llm/agent-prompt.js';

// The agent maps the model's short refs back to Playwright's in the arguments that hold refs, and only there:
// wait_for_email's `to` is an address ({{INBOX}}), drag's `to` is an element.

describe('ref arguments', () => {
  const aliases = new RefAliases();
  aliases.apply('- listitem [ref=f2e40]:\n  - button "Drop here" [ref=f2e41]');

  it('maps ref, to for drag only, and masks', () => {
    expect(withRealRefs('click', { ref: 'e2', description: 'Drop' }, aliases)).toEqual({
      ref: 'f2e41',
      description: 'Drop',
    });
    expect(withRealRefs('drag', { ref: 'e1', to: 'e2' }, aliases)).toEqual({ ref: 'f2e40', to: 'f2e41' });
    expect(withRealRefs('wait_for_email', { to: '{{INBOX}}', subject: 'Verify' }, aliases)).toEqual({
      to: '{{INBOX}}',
      subject: 'Verify',
    });
    expect(withRealRefs('press', { key: 'Enter', ref: '' }, aliases)).toEqual({ key: 'Enter', ref: '' });
    // A visual check's masks are refs too, each of them: unmapped, `e2` named another element of the page.
    expect(withRealRefs('assert_screenshot', { masks: ['e2', 'e1'] }, aliases)).toEqual({ masks: ['f2e41', 'f2e40'] });
    expect(() => withRealRefs('assert_screenshot', { masks: ['e1', 'e9'] }, aliases)).toThrow(/no element \[ref=e9\]/);
  });

  it('refuses a ref that was not in the snapshot, and leaves arguments alone without aliases', () => {
    expect(() => withRealRefs('click', { ref: 'e3' }, aliases)).toThrow(/no element \[ref=e3\] in the latest snapshot/);
    expect(withRealRefs('click', { ref: 'f2e41' }, undefined)).toEqual({ ref: 'f2e41' });
  });
});
