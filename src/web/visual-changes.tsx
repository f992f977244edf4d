// A test's visual changes (issue 37, item 4; issue 36 for the run page): each check that differed from its baseline
// with a small thumbnail of its diff, the share of pixels that differ and links to the diff, the new image and the
// baseline. The run page and the change review page both show them.
import { percent } from '../domain/review-visual.js';
import { joined } from './components.js';

export interface ShownVisualChange {
  stepIndex: number;
  /** The step in words. */
  step: string;
  /** The element's locator, or `the page`. */
  target: string;
  ratio: number;
  diff: string | null;
  actual: string | null;
  baseline: string | null;
}

export function VisualChangeList(props: { testName: string; changes: ShownVisualChange[] }) {
  return (
    <ul class="visual-changes">
      {props.changes.map((v) => {
        const links = (
          [
            ['diff image', v.diff],
            ['new image', v.actual],
            ['baseline', v.baseline],
          ] as const
        ).filter(([, href]) => href);
        return (
          <li>
            {v.diff && (
              <a href={v.diff}>
                <img
                  class="thumb"
                  src={v.diff}
                  alt={`Diff of step ${v.stepIndex + 1} of ${props.testName}: differing pixels in red`}
                  loading="lazy"
                  width="160"
                />
              </a>
            )}
            <span>
              Step {v.stepIndex + 1} ({v.step}): {v.target === 'the page' ? 'the page' : <code>{v.target}</code>} looks
              different, {percent(v.ratio)} of its pixels differ.{' '}
              {joined(
                links,
                ([label, href]) => (
                  <a href={href!}>
                    {label} of step {v.stepIndex + 1}
                  </a>
                ),
                ' · ',
              )}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
