import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowTypes } from '../../workflows/shared.js';
import { workflowBundle } from '../support/worker-context.js';
import { workflowSpanSinks } from '../../src/temporal/tracing.js';

// Recorded histories of real runs, each named `<workflowType>*.json` (refresh: RECORD_HISTORIES=1 npx vitest run
// test/e2e/plan-run.test.ts test/e2e/burn-in-replay.test.ts test/e2e/chat.test.ts test/e2e/merge-request-review.test.ts
// test/e2e/step-insert.test.ts test/e2e/failed-calls.test.ts test/e2e/discovery.test.ts
// test/e2e/operator-console.test.ts). Every file found is replayed against today's workflow
// code, so a non-deterministic change fails the build; a new history needs no change here.
const dir = join(import.meta.dirname, 'histories');

describe('recorded workflow histories replay deterministically', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has histories, each named after a workflow the worker registers', () => {
    expect(files.length).toBeGreaterThan(0);
    const types = Object.keys(workflowTypes);
    for (const file of files)
      expect(
        types.find((t) => file.startsWith(t)),
        `${file} names no workflow type`,
      ).toBeDefined();
  });

  it.each(files)(
    '%s',
    async (file) => {
      const history = historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));
      expect(history.events?.length).toBeGreaterThan(10);
      // The bundle carries the tracing interceptors: their span sink is registered, as every worker has it.
      await Worker.runReplayHistory(
        { workflowBundle: await workflowBundle(), sinks: workflowSpanSinks(undefined) },
        history,
        `replay-${file}`,
      );
    },
    60_000,
  );
});
