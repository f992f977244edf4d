import { describe, expect, it } from 'vitest';
import { createLogger, redactText, withLogFields } from '../../src/logger.js';
import { temporalLogger } from '../../src/worker/temporal-logger.js';

// The JSON lines: what a line carries (the scope's fields, its own), and secrets masked whatever field or text
// carries them.

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { process: 'test' }, (l) => lines.push(JSON.parse(l)));
  return { lines, logger };
};

describe('log lines', () => {
  it('carry the fields of the work under way, through nested scopes and async steps, and no trace when tracing is off', async () => {
    const { lines, logger } = capture();
    await withLogFields({ projectId: 'p1', workflowId: 'run:r1' }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      await withLogFields({ activityId: '3' }, async () => logger.info('inside', { extra: 1 }));
      logger.info('outside the activity');
    });
    logger.info('after');
    expect(lines.map(({ time: _t, ...rest }) => rest)).toEqual([
      {
        level: 'info',
        msg: 'inside',
        process: 'test',
        projectId: 'p1',
        workflowId: 'run:r1',
        activityId: '3',
        extra: 1,
      },
      { level: 'info', msg: 'outside the activity', process: 'test', projectId: 'p1', workflowId: 'run:r1' },
      { level: 'info', msg: 'after', process: 'test' },
    ]);
  });

  const secret = 's3cr3t-value-XYZ';
  it.each([
    ['password', { password: secret }],
    ['a nested token', { config: { token: secret } }],
    ['an API key', { apiKey: secret }],
    ['an S3 secret key', { S3_SECRET_KEY: secret }],
    ['an internal secret', { internalSecret: secret }],
    ['an authorization header', { headers: { Authorization: secret } }],
    ['a cookie', { cookie: secret }],
    ['a master key', { PROCTOR_MASTER_KEY: secret }],
    ['a bearer credential in text', { message: `request failed: Bearer ${secret}` }],
    ['a URL password', { url: `postgres://proctor:${secret}@db:5432/proctor` }],
    ['a Proctor API token in text', { note: `token prt_${secret}` }],
    ['an error message', { err: new Error(`could not reach https://user:${secret}@example.com/`) }],
  ])('mask %s', (_name, fields) => {
    const { lines, logger } = capture();
    logger.warn('something', fields);
    expect(JSON.stringify(lines[0])).not.toContain(secret);
    expect(JSON.stringify(lines[0])).toContain('[redacted]');
  });

  it('keep counts and ids that only sound like secrets', () => {
    const { lines, logger } = capture();
    logger.info('usage', { inputTokens: 12, outputTokens: 3, tokenId: 'tok-1', screenshotKey: 'runs/x.png' });
    expect(lines[0]).toMatchObject({ inputTokens: 12, outputTokens: 3, tokenId: 'tok-1', screenshotKey: 'runs/x.png' });
    expect(redactText('no secret here: https://example.com/a?b=c')).toBe('no secret here: https://example.com/a?b=c');
  });

  it("carry Temporal's lines with its level, its trace fields renamed and its run id told from Proctor's", () => {
    const { lines, logger } = capture();
    const temporal = temporalLogger(logger);
    temporal.warn('Activity failed', {
      runId: 't-run',
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      workflowId: 'run:r1',
    });
    temporal.trace('noise');
    expect(lines.map(({ time: _t, ...rest }) => rest)).toEqual([
      {
        level: 'warn',
        msg: 'Activity failed',
        process: 'test',
        source: 'temporal',
        temporalRunId: 't-run',
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        workflowId: 'run:r1',
      },
      { level: 'debug', msg: 'noise', process: 'test', source: 'temporal' },
    ]);
  });
});
