import type { FormCoverage } from '../domain/coverage.js';
import type { SuggestionView } from '../services/discovery-suggestions.js';
import { When } from './components.js';
import { CsrfField } from './layout.js';

// The tests a completed discovery suggests (issue 34), best first: what each would do and cover and why, with
// Accept (its test case is created and burns in; the page goes to it) and Reject (never proposed again) as plain
// forms, so they work without JavaScript. A decided suggestion stays listed with what became of it.

function Decision(props: { base: string; s: SuggestionView; action: string; csrf: string }) {
  const { s } = props;
  if (s.status === 'ACCEPTED')
    return (
      <p>
        <strong>Accepted</strong> <When at={s.decidedAt} />
        {s.testCaseId && (
          <>
            : <a href={`${props.base}/test-cases/${s.testCaseId}`}>its test case</a>
          </>
        )}
      </p>
    );
  if (s.status === 'REJECTED')
    return (
      <p>
        <strong>Rejected</strong> <When at={s.decidedAt} />: no discovery of the project proposes it again.
      </p>
    );
  return (
    <div class="actions">
      <form class="inline" method="post" action={`${props.action}/${s.id}/accept`}>
        <CsrfField token={props.csrf} />
        <button class="primary" type="submit" aria-label={`Accept: ${s.name}`}>
          Accept
        </button>
      </form>{' '}
      <form class="inline" method="post" action={`${props.action}/${s.id}/reject`}>
        <CsrfField token={props.csrf} />
        <button type="submit" aria-label={`Reject: ${s.name}`}>
          Reject
        </button>
      </form>
    </div>
  );
}

export function SuggestionCards(props: {
  base: string;
  applicationShortId: string;
  discoveryShortId: string;
  suggestions: SuggestionView[];
  forms: FormCoverage[];
  csrf: string;
}) {
  const formNames = new Map(props.forms.map((f) => [f.id, f.name]));
  const action = `${props.base}/applications/${props.applicationShortId}/discoveries/${props.discoveryShortId}/suggestions`;
  const proposed = props.suggestions.filter((s) => s.status === 'PROPOSED').length;
  return (
    <>
      <p>
        {props.suggestions.length === 0
          ? 'No suggestions: every form and important page is covered, or was suggested before.'
          : `${proposed} of ${props.suggestions.length} suggestions still to decide.`}{' '}
        Accepting one creates its test case, which burns in as any other.
      </p>
      {props.suggestions.map((s) => (
        <section class={`card suggestion ${s.status}`} aria-labelledby={`suggestion-${s.id}`}>
          <h3 id={`suggestion-${s.id}`}>
            {s.rank}. {s.name}
          </h3>
          <dl class="facts">
            <dt>Goal</dt>
            <dd>{s.goal}</dd>
            <dt>Expected result</dt>
            <dd>{s.expectedResult}</dd>
            <dt>Start page</dt>
            <dd>
              <code>{s.startUrl}</code>
            </dd>
            <dt>Covers</dt>
            <dd>
              {[
                ...s.covers.patterns.map((p) => `page ${p}`),
                ...s.covers.forms.map((f) => `form ${formNames.get(f) ?? f}`),
              ].join(', ') || <span class="muted">–</span>}
            </dd>
            <dt>Why</dt>
            <dd>{s.reason}</dd>
          </dl>
          <Decision base={props.base} s={s} action={action} csrf={props.csrf} />
        </section>
      ))}
    </>
  );
}
