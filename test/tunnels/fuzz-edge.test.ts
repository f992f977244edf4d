// Issue 23: the tunnel edge fuzzed with fixed seeds over real WebSockets and HTTP. Hostile tunnel clients send
// random bytes, frames of unknown types, text messages, random frames for the streams the edge opened, response
// heads no HTTP server would send, frames over the size limit; slow clients stop reading or dribble their upgrade.
// The edge must not crash, must close a connection that breaks the protocol, and must keep serving another tunnel.
import { request as httpRequest } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { decodeFrame, encodeFrame, FrameType, tunnelConnectPath } from '../../src/tunnels/protocol.js';
import { requestTunnel, startTunnelStack, type TunnelStack } from '../support/tunnel-stack.js';

const seed = 2323;

interface Tunnel {
  host: string;
  token: string;
}

/** A tunnel client speaking the protocol properly: every request is answered 200 "ok from <name>". */
function goodClient(apiUrl: string, token: string, name: string): Promise<WebSocket> {
  const ws = new WebSocket(`${apiUrl.replace('http', 'ws')}${tunnelConnectPath}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  ws.on('message', (data: Buffer) => {
    const frame = decodeFrame(data);
    if (frame?.type !== FrameType.REQUEST) return;
    ws.send(encodeFrame(FrameType.RESPONSE, frame.stream, { status: 200, headers: ['Content-Type', 'text/plain'] }));
    ws.send(encodeFrame(FrameType.DATA, frame.stream, Buffer.from(`ok from ${name}`)));
    ws.send(encodeFrame(FrameType.END, frame.stream));
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const closed = (ws: WebSocket, ms = 3_000) =>
  new Promise<number | 'open'>((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve(-1);
    const timer = setTimeout(() => resolve('open'), ms);
    ws.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });

/**
 * A GET for a tunnel host on a connection of its own: a pooled keep-alive socket may have been closed by the server
 * in the meantime, and a reset on it would be the test client's doing, not the edge's.
 */
function fresh(apiUrl: string, host: string): Promise<{ status: number; body: string }> {
  const base = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: base.hostname, port: base.port, path: '/', headers: { host }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Raw HTTP with a deadline: a hostile client may never answer, and the caller gives up as a browser would. */
async function get(apiUrl: string, host: string, ms = 1_500): Promise<number | 'timeout' | 'reset'> {
  return Promise.race([
    fresh(apiUrl, host).then(
      (r) => r.status,
      () => 'reset' as const,
    ),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);
}

describe('fuzz: the tunnel edge', () => {
  let stack: TunnelStack;
  let good: Tunnel;
  let bad: Tunnel;
  let goodWs: WebSocket;
  const served = { good: 0 };

  const createTunnel = async (): Promise<Tunnel> => {
    const res = await stack.call('POST', '/v1/remote-tunnels', {
      ports: [{ localPort: 3000, subdomain: 'web' }],
      public: true,
    });
    expect(res.status).toBe(200);
    return { host: new URL(res.body.hostnames[0].url).host, token: res.body.tunnelToken };
  };
  /** The other tunnel still answers, through its own client. */
  const stillServing = async () => {
    const res = await fresh(stack.apiUrl, good.host);
    expect([res.status, res.body]).toEqual([200, 'ok from good']);
    served.good++;
  };
  const openBad = async (): Promise<WebSocket> => {
    const ws = new WebSocket(`${stack.apiUrl.replace('http', 'ws')}${tunnelConnectPath}`, {
      headers: { authorization: `Bearer ${bad.token}` },
    });
    ws.on('error', () => undefined);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('unexpected-response', reject);
    });
    return ws;
  };

  beforeAll(async () => {
    stack = await startTunnelStack();
    [good, bad] = [await createTunnel(), await createTunnel()];
    goodWs = await goodClient(stack.apiUrl, good.token, 'good');
    // The edge registers a connection once its row is written.
    for (let i = 0; i < 50 && (await requestTunnel(stack.apiUrl, { host: good.host })).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    await stillServing();
  });
  afterAll(async () => {
    goodWs?.terminate();
    await stack?.close();
  });

  it('200 connections sending malformed frames (random bytes, unknown types, short frames, text): each is closed, the edge keeps serving', async () => {
    const malformed = fc.oneof(
      fc.uint8Array({ maxLength: 4 }).map((b) => ({ binary: true, data: Buffer.from(b) })),
      fc
        .tuple(
          fc.oneof(fc.constant(0), fc.integer({ min: 7, max: 255 })),
          fc.uint8Array({ minLength: 4, maxLength: 64 }),
        )
        .map(([t, rest]) => ({ binary: true, data: Buffer.concat([Buffer.from([t]), Buffer.from(rest)]) })),
      fc.string({ maxLength: 64 }).map((s) => ({ binary: false, data: Buffer.from(s) })),
    );
    // Well-formed frames for streams that do not exist may come first (a late frame is legal): they change nothing.
    const stray = fc
      .tuple(
        fc.constantFrom(FrameType.RESPONSE, FrameType.DATA, FrameType.END, FrameType.ABORT),
        fc.nat(),
        fc.uint8Array({ maxLength: 64 }),
      )
      .map(([t, s, p]) => ({ binary: true, data: encodeFrame(t, s, Buffer.from(p)) }));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stray, { maxLength: 3 }), malformed, async (before, frame) => {
        const ws = await openBad();
        for (const f of [...before, frame]) ws.send(f.data, { binary: f.binary });
        expect(await closed(ws), `${frame.binary ? 'binary' : 'text'} ${frame.data.toString('hex').slice(0, 80)}`).toBe(
          1002,
        );
        if (++n % 20 === 0) await stillServing();
      }),
      { seed, numRuns: 200 },
    );
    await stillServing();
  }, 90_000);

  it('150 requests answered by a hostile client with random frames for their stream: every caller gets an answer or a reset, the edge keeps serving', async () => {
    const ws = await openBad();
    // Each request's stream id, as the edge opened it.
    const opened: number[] = [];
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrame(data);
      if (frame?.type === FrameType.REQUEST) opened.push(frame.stream);
    });
    // The edge takes requests on a connection once its row is written: wait until one arrives, and give it up.
    for (let i = 0; i < 50 && opened.length === 0; i++) {
      void get(stack.apiUrl, bad.host, 200);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const stream of opened.splice(0)) ws.send(encodeFrame(FrameType.ABORT, stream, 'warm-up'));
    const head = fc.oneof(
      fc
        .record(
          {
            status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer(), fc.double(), fc.constant(101)),
            statusText: fc.oneof(fc.string(), fc.integer()),
            headers: fc.array(fc.string({ maxLength: 20 }), { maxLength: 6 }),
          },
          { requiredKeys: ['status', 'headers'] },
        )
        .map((h) => Buffer.from(JSON.stringify(h))),
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '')),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
    );
    const reply = fc.array(
      fc.oneof(
        head.map((p) => [FrameType.RESPONSE, p] as const),
        fc.uint8Array({ maxLength: 200 }).map((b) => [FrameType.DATA, Buffer.from(b)] as const),
        fc.constant([FrameType.END, Buffer.alloc(0)] as const),
        fc.string({ maxLength: 30 }).map((s) => [FrameType.ABORT, Buffer.from(s)] as const),
      ),
      { minLength: 0, maxLength: 5 },
    );
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(reply, async (frames) => {
        const answer = get(stack.apiUrl, bad.host, 1_000);
        for (let i = 0; i < 100 && opened.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
        const stream = opened.shift();
        expect(stream, 'the edge sent the request down the tunnel').toBeDefined();
        for (const [type, payload] of frames) ws.send(encodeFrame(type, stream!, payload));
        // As a client does in the end when its app fails: the stream is given up (a no-op after END).
        ws.send(encodeFrame(FrameType.ABORT, stream!, 'gave up'));
        const outcome = String(await answer);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }),
      { seed, numRuns: 150 },
    );
    expect(ws.readyState, 'frames of the protocol, however odd their content, keep the connection').toBe(ws.OPEN);
    expect(outcomes.size, JSON.stringify([...outcomes])).toBeGreaterThan(2);
    await stillServing();
    ws.terminate();
  }, 90_000);

  it('a frame over 16 MiB closes that connection (1009); a client that stops reading and a dribbled upgrade hold up no one else', async () => {
    const big = await openBad();
    big.send(encodeFrame(FrameType.DATA, 1, Buffer.alloc(16 * 1024 * 1024 + 10)));
    expect(await closed(big, 10_000)).toBe(1009);
    await stillServing();

    // A client that never reads: requests with 4 MiB bodies fill its connection; the edge waits on it alone.
    const stalled = await openBad();
    (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
    const bodies = Array.from({ length: 3 }, () =>
      requestTunnel(stack.apiUrl, { host: bad.host, method: 'POST', body: Buffer.alloc(4 * 1024 * 1024, 1) }).catch(
        () => undefined,
      ),
    );
    // Slowloris on the connect path: an upgrade request a few bytes at a time.
    const slow = tcpConnect(Number(new URL(stack.apiUrl).port), '127.0.0.1');
    slow.on('error', () => undefined);
    const request = `GET ${tunnelConnectPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n`;
    let sent = 0;
    const dribble = setInterval(() => slow.write(request.slice(sent, ++sent)), 20);
    const started = Date.now();
    for (let i = 0; i < 10; i++) await stillServing();
    expect(Date.now() - started, 'ten requests to the other tunnel').toBeLessThan(5_000);
    clearInterval(dribble);
    slow.destroy();
    stalled.terminate();
    await Promise.all(bodies);
    await stillServing();
    expect(served.good).toBeGreaterThan(20);
  }, 60_000);
});
