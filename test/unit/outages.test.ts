// What a worker waits out and what it fails on at once: an LLM endpoint or a blob store that cannot be reached is
// ridden out (tested end to end in test/production/faults.test.ts); what the other side refused is not.
import OpenAI from 'openai';
import { S3Error } from 'minio';
import { describe, expect, it } from 'vitest';
import { isOutage, riding } from '../../src/llm/outage.js';
import { BlobNotFoundError, type BlobStore } from '../../src/storage/blob-store.js';
import { isStorageOutage, outlastingOutages } from '../../src/storage/outlasting.js';

const apiError = (status: number, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error: { message: `status ${status}` } }, undefined, new Headers(headers));
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const s3 = (code: string) => Object.assign(new S3Error(code), { code });

describe('an LLM outage', () => {
  it.each([
    ['a refused connection', new OpenAI.APIConnectionError({ message: 'Connection error.' }), true],
    ['a connection that timed out', new OpenAI.APIConnectionTimeoutError(), true],
    ['a gateway 502', apiError(502), true],
    ['a gateway 503', apiError(503), true],
    ['a gateway 504', apiError(504), true],
    ['a 503 that says not to retry', apiError(503, { 'x-should-retry': 'false' }), false],
    ["the model server's own 500", apiError(500), false],
    ['a rate limit (the client retries it itself)', apiError(429), false],
    ['a bad request', apiError(400), false],
    ['a wrong key', apiError(401), false],
    ['any other error', new Error('boom'), false],
  ])('%s: %s', (_, err, outage) => expect(isOutage(err)).toBe(outage));

  it('is waited out until the endpoint answers', async () => {
    let calls = 0;
    const answer = await riding(10_000, async () => {
      if (++calls < 3) throw new OpenAI.APIConnectionError({ message: 'Connection error.' });
      return 'answered';
    });
    expect({ answer, calls }).toEqual({ answer: 'answered', calls: 3 });
  });

  it('fails at once on what is not an outage, without a wait, or once a retry would repeat streamed words', async () => {
    const refused = apiError(400);
    let calls = 0;
    const count = (err: unknown) => async () => {
      calls++;
      throw err;
    };
    await expect(riding(10_000, count(refused))).rejects.toBe(refused);
    const down = new OpenAI.APIConnectionError({ message: 'Connection error.' });
    await expect(riding(undefined, count(down))).rejects.toBe(down);
    await expect(riding(10_000, count(down), () => false)).rejects.toBe(down);
    expect(calls).toBe(3);
  });

  it('gives up with the last error once the wait is over', async () => {
    const down = new OpenAI.APIConnectionError({ message: 'Connection error.' });
    const started = Date.now();
    await expect(
      riding(1_500, async () => {
        throw down;
      }),
    ).rejects.toBe(down);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });
});

describe('a blob store outage', () => {
  it.each([
    ['refused', coded('ECONNREFUSED'), true],
    ['reset', coded('ECONNRESET'), true],
    ['timed out', coded('ETIMEDOUT'), true],
    ['a name that does not resolve yet', coded('EAI_AGAIN'), true],
    ['a socket hung up', new Error('socket hang up'), true],
    ['wrapped in another error', new Error('upload failed', { cause: coded('ECONNREFUSED') }), true],
    ['S3 not ready', s3('XMinioServerNotInitialized'), true],
    ['S3 slowing down', s3('SlowDown'), true],
    ['S3 unavailable', s3('ServiceUnavailable'), true],
    ['a missing key', s3('NoSuchKey'), false],
    ['access denied', s3('AccessDenied'), false],
    ['a blob not found', new BlobNotFoundError('k'), false],
    ['any other error', new Error('invalid blob key'), false],
  ])('%s: %s', (_, err, outage) => expect(isStorageOutage(err)).toBe(outage));

  it('is waited out by every operation that reaches the store, and what it refused fails at once', async () => {
    const failures: unknown[] = [coded('ECONNREFUSED'), coded('ECONNRESET')];
    const calls: string[] = [];
    const flaky = (name: string) => async () => {
      calls.push(name);
      const next = failures.shift();
      if (next) throw next;
    };
    const store = outlastingOutages(
      {
        kind: 's3',
        put: flaky('put'),
        get: async (key: string) => {
          throw new BlobNotFoundError(key);
        },
      } as unknown as BlobStore,
      10_000,
    );
    await store.put('a/b', new Uint8Array([1]));
    expect(calls).toEqual(['put', 'put', 'put']);
    await expect(store.get('a/missing')).rejects.toBeInstanceOf(BlobNotFoundError);
  });
});
