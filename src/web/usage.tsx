// What a piece of LLM work cost, in one line: shown on burn-ins, runs, chat turns and reviews.
import type { UsageTotals } from '../domain/llm-usage.js';

const n = (value: number) => value.toLocaleString('en-US');

export function UsageText(props: { usage: UsageTotals | undefined }) {
  const u = props.usage;
  if (!u || u.calls === 0) return <span class="muted">no LLM calls</span>;
  return (
    <span class="usage">
      {n(u.calls)} LLM call{u.calls === 1 ? '' : 's'}, {n(u.promptTokens)} prompt tokens
      {u.cachedTokens > 0 && ` (${n(u.cachedTokens)} cached)`}, {n(u.completionTokens)} completion tokens
      {u.costUsd !== undefined && `, $${u.costUsd.toFixed(4)}`}
      {u.estimated && <span class="muted"> (estimated: the server did not report all of them)</span>}
    </span>
  );
}
