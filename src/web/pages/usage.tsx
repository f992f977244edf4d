import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { renderPage } from '../layout.js';
import { ColumnHeads } from '../components.js';
import { UsageChart } from '../trend-charts.js';
import { UsageText } from '../usage.js';
import { usageTrend } from '../../services/trends.js';

// The project's LLM use (issue 36): tokens and cost per day over the last 30 days, drawn and as a table, with the
// daily budget and what is spent of it today. The same figures as GET /v1/usage.

const n = (value: number) => value.toLocaleString('en-US');
const usd = (value: number | undefined) => (value === undefined ? '–' : `$${value.toFixed(4)}`);

export function registerUsagePages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/usage');

  web.get('/usage', async (c) => {
    const usage = await usageTrend(c.get('services'), c.get('session').projectId);
    const { budget } = usage;
    const busy = usage.points.filter((p) => p.calls > 0).reverse();
    return renderPage(
      c,
      { title: 'LLM usage', nav: 'usage' },
      <>
        <h1>LLM usage</h1>
        <p>
          Burn-ins, heals in runs, conversations and change reviews call the model; replays do not. From {usage.from} to{' '}
          {usage.to} (UTC): <UsageText usage={usage.total} />.
        </p>
        <dl class="facts">
          <dt>Daily budget</dt>
          <dd>
            {budget.dailyTokens === null && budget.dailyUsd === null
              ? 'none'
              : [
                  budget.dailyTokens !== null && `${n(budget.dailyTokens)} tokens`,
                  budget.dailyUsd !== null && usd(budget.dailyUsd),
                ]
                  .filter(Boolean)
                  .join(' and ')}
            {budget.exceeded && <strong> (reached: new LLM work is refused until the next UTC day)</strong>}
          </dd>
          <dt>Today</dt>
          <dd>
            <UsageText usage={budget.spentToday} />
          </dd>
        </dl>
        <h2>Tokens per day</h2>
        <UsageChart points={usage.points} />
        {busy.length === 0 ? (
          <p>No LLM calls in these 30 days.</p>
        ) : (
          <table>
            <caption>Days with calls, newest first</caption>
            <ColumnHeads names={['Day', 'Calls', 'Tokens', 'Cost']} />
            <tbody>
              {busy.map((d) => (
                <tr>
                  <td>{d.date}</td>
                  <td>{n(d.calls)}</td>
                  <td>{n(d.tokens)}</td>
                  <td>{usd(d.costUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </>,
    );
  });
}
