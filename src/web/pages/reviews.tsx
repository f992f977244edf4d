import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, listPageSize, listWindow, Pager, Status, When } from '../components.js';
import { renderPage } from '../layout.js';
import { dashboardReviews } from '../../services/dashboard.js';
import type { ChangeReviewView } from '../../services/change-reviews.js';
import { Markdown } from '../markdown.js';
import { factNotes } from '../../domain/change-review-reply.js';
import { UsageText } from '../usage.js';
import { VisualChangeList } from '../visual-changes.js';

// A change review is a conversation of its own (its API `url` is the conversation's page): the list links there,
// and the conversation page shows the review's verdict, tests and links above the messages.

const modeLabel = { pr: 'pull/merge request', rawChanges: 'diff' } as const;

export function registerReviewPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/reviews');

  web.get('/reviews', async (c) => {
    const { page, limit, offset } = listWindow(c.req.query('page'));
    const { reviews, total } = await dashboardReviews(c.get('services'), c.get('session').projectId, { limit, offset });
    return renderPage(
      c,
      { title: 'Change reviews', nav: 'reviews' },
      <>
        <h1>Change reviews</h1>
        {reviews.length === 0 ? (
          <p>
            No change reviews yet. Start one with <code>POST /v1/chat/change-review</code> or from a merge request.
          </p>
        ) : (
          <table>
            <caption class="muted">Newest first</caption>
            <ColumnHeads names={['Review', 'Of', 'State', 'Verdict', 'Started']} />
            <tbody>
              {reviews.map((r) => (
                <tr>
                  <td>
                    <a href={`${base}/chats/${r.chatShortId}`}>{r.title ?? r.chatShortId}</a>
                  </td>
                  <td>
                    {r.prUrl ? (
                      <a href={r.prUrl} rel="noreferrer">
                        {r.prUrl}
                      </a>
                    ) : (
                      modeLabel[r.mode]
                    )}
                  </td>
                  <td>
                    <Status value={r.state} />
                  </td>
                  <td>{r.verdict ?? <span class="muted">not yet</span>}</td>
                  <td>
                    <When at={r.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager path={`${base}/reviews`} query={{}} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });
}

/** The review's verdict, summary, tests and links, on its conversation's page. */
export function ReviewSection(props: { base: string; review: ChangeReviewView }) {
  const { base, review: r } = props;
  const changeUrl = r.change?.url ?? r.prUrl;
  return (
    <section class="card" aria-labelledby="review-heading">
      <h2 id="review-heading">Change review: {r.verdict ?? <Status value={r.state} />}</h2>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <Status value={r.state} />
          {r.phase && r.state === 'RUNNING' && <span class="muted"> ({r.phase})</span>}
        </dd>
        <dt>Change</dt>
        <dd>
          {r.change?.title && <>{r.change.title} </>}
          {changeUrl ? (
            <a href={changeUrl} rel="noreferrer">
              {changeUrl}
            </a>
          ) : (
            modeLabel[r.mode]
          )}
          {r.change && (
            <span class="muted">
              {' '}
              ({r.change.fileCount} files
              {r.change.headSha && (
                <>
                  , at <code>{r.change.headSha.slice(0, 10)}</code>
                </>
              )}
              )
            </span>
          )}
        </dd>
        {r.runShortId && (
          <>
            <dt>Run</dt>
            <dd>
              <a href={`${base}/runs/${r.runShortId}`}>{r.runShortId}</a>
            </dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          <When at={r.createdAt} />
        </dd>
        {r.completedAt && (
          <>
            <dt>Finished</dt>
            <dd>
              <When at={r.completedAt} />
            </dd>
          </>
        )}
        <dt>LLM usage</dt>
        <dd>
          <UsageText usage={r.usage} />
        </dd>
      </dl>
      {r.summary && <Markdown text={r.summary} />}
      {r.failureReason && (
        <p class="error" role="alert">
          {r.failureReason}
        </p>
      )}
      {r.tests.length > 0 && (
        <table>
          <caption class="muted">Tests of this review</caption>
          <ColumnHeads names={['Test', 'New or existing', 'Result', 'Detail']} />
          <tbody>
            {r.tests.map((t) => (
              <tr>
                <td>
                  <a href={`${base}/test-cases/${t.testCaseId}`}>{t.name}</a>
                </td>
                <td>{t.origin}</td>
                <td>
                  <Status value={t.result} />
                </td>
                <td>
                  {[
                    ...(t.quarantined ? ['quarantined: counts for nothing'] : []),
                    ...(t.detail ? [t.detail] : []),
                    ...factNotes(t),
                  ].join('; ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <VisualChanges base={base} review={r} />
    </section>
  );
}

/** The review's visual changes, apart from its tests: not failed tests, but each needs a person to look. */
function VisualChanges(props: { base: string; review: ChangeReviewView }) {
  const changed = props.review.tests.filter((t) => !t.quarantined && t.visualChanges?.length);
  if (changed.length === 0) return null;
  return (
    <section aria-labelledby="visual-changes-heading">
      <h3 id="visual-changes-heading">Visual changes</h3>
      <p class="muted">
        Not failed tests: the pages look different from their baselines. If the new look is intended, accept the
        proposed baseline on the test case; the next review compares with it.
      </p>
      {changed.map((t) => (
        <>
          <h4>
            <a href={`${props.base}/test-cases/${t.testCaseId}`}>{t.name}</a>
          </h4>
          <VisualChangeList testName={t.name} changes={t.visualChanges!.map((v) => ({ ...v, ...v.pages }))} />
        </>
      ))}
    </section>
  );
}
