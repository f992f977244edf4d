import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../support/worker-context.js';

// Recorded histories of real runs (refresh: RECORD_HISTORIES=1 npx vitest run test/e2e/plan-run.test.ts test/e2e/chat.test.ts).
// Replaying them against today's workflow code fails the build on a non-deterministic change.
const dir = join(import.meta.dirname, 'histories');

describe('recorded workflow histories replay deterministically', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has histories of planRun, testExecution and the chat workflows', () => {
    expect(files.sort()).toEqual(['chatConversation.json', 'chatTurn.json', 'planRun.json', 'testExecution.json']);
  });

  it.each(files)('%s', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    expect(history.events?.length).toBeGreaterThan(10);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, `replay-${file}`);
  }, 60_000);
});
