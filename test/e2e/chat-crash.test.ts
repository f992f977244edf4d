// Crash and restart safety of chat turns: a `proctor worker` process killed with SIGKILL while a reply streams
// leaves one assistant message, finished by the next worker; an API restarted right after its 202 loses nothing.
import { describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { silentLogger } from '../../src/logger.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { pollChat } from '../support/chat-polling.js';
import { useCrashStack } from '../support/crash-stack.js';
import { killWorker, waitWhileRunning } from '../support/worker-process.js';

const reply = Array.from({ length: 120 }, (_, i) => `token${i + 1}`).join(' ');

describe('chat turns survive a killed worker and a restarted API', () => {
  const crash = useCrashStack({ name: 'chat-crash' });

  it('SIGKILL while a reply streams: the next worker finishes it, one assistant message', async () => {
    const { stack, llm } = crash;
    const first = crash.startWorker();
    // The killed attempt consumes the first reply; the retry streams the second, from the start.
    llm.enqueue({ content: reply, fragmentDelayMs: 50 }, { content: reply, fragmentDelayMs: 10 });
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'Stream a long answer' })).body;

    let partialAtKill = '';
    await waitWhileRunning(
      first,
      async () => {
        const newest = (await stack.call('GET', `/v1/chat/${shortId}`)).body.messages[0];
        partialAtKill = newest.status === 'PARTIAL' ? newest.text : '';
        return partialAtKill.length > 50;
      },
      90_000,
      'the reply to stream on the first worker',
    );
    await killWorker(first);
    expect(reply.startsWith(partialAtKill)).toBe(true);
    expect(partialAtKill.length).toBeLessThan(reply.length);

    crash.startWorker();
    const poll = await pollChat(stack, shortId, { intervalMs: 250, timeoutMs: 120_000 });
    expect(poll.final.messages[0]).toMatchObject({ role: 'assistant', status: 'COMPLETED', text: reply });
    const rows = await stack.db
      .selectFrom('chat_messages as m')
      .innerJoin('chats as c', 'c.id', 'm.chat_id')
      .select(['m.role', 'm.status'])
      .where('c.short_id', '=', shortId)
      .execute();
    expect(rows.filter((r) => r.role === 'assistant')).toEqual([{ role: 'assistant', status: 'COMPLETED' }]);
    expect(llm.requests).toHaveLength(2);
  }, 240_000);

  it('an API restarted right after its 202 loses no message', async () => {
    const { stack, llm } = crash;
    llm.reset();
    llm.enqueue({ content: 'Still here.' });
    const temporal = createTemporalClientProvider({
      address: inject('temporalAddress'),
      namespace: 'default',
      taskQueue: stack.taskQueue,
    });
    const deps = {
      db: stack.db,
      config: {
        appUrl: 'https://app.proctor.test',
        publicUrl: 'http://127.0.0.1:3000',
        PROCTOR_URL_TTL_SECONDS: 900,
        PROCTOR_RUN_CONCURRENCY: 100,
      },
      temporal,
      blobs: createFsBlobStore({ dir: crash.blobDir, secret: 'x'.repeat(64), publicUrl: 'http://127.0.0.1:3000' }),
      logger: silentLogger,
    };
    const headers = { authorization: `Bearer ${stack.tenant.token}`, 'content-type': 'application/json' };
    const accepted = await createApp(deps).request('/v1/chat', {
      method: 'POST',
      headers,
      body: JSON.stringify({ message: 'Are you still there?' }),
    });
    expect(accepted.status).toBe(202);
    const { shortId } = (await accepted.json()) as { shortId: string };
    // The API goes away at once (its Temporal connection with it); a new one answers the polls.
    await temporal.close();
    const temporalAfter = createTemporalClientProvider({
      address: inject('temporalAddress'),
      namespace: 'default',
      taskQueue: stack.taskQueue,
    });
    const restarted = createApp({ ...deps, temporal: temporalAfter });
    const call = async (method: string, path: string) => {
      const res = await restarted.request(path, { method, headers });
      return { status: res.status, body: (await res.json()) as any };
    };
    try {
      const poll = await pollChat({ call }, shortId, { timeoutMs: 60_000 });
      expect(poll.final.messages[0]).toMatchObject({ status: 'COMPLETED', text: 'Still here.' });
    } finally {
      await temporalAfter.close();
    }
  }, 120_000);
});
