// What the chat costs on top of the model: a reply streamed by the scripted LLM at a fixed rate (F fragments,
// one every D ms, so the model's own time is F×D from the request), through the real stack: the API over HTTP,
// the chatConversation workflow and its chatTurn child on a Temporal dev server, the streaming activity writing
// PostgreSQL at most every 250 ms. A poller reads GET /v1/chat/{id} every P ms, as a client following the spec
// would (only faster, to see the states).
//
// Per turn, timed from the POST:
// - 202: the message and its placeholder are written and the workflow is signalled (signal-with-start);
// - LLM request: when the model was asked (workflow start/signal, child start, activities before the stream);
// - first PARTIAL: the first poll that sees text; overhead = that - D (the model's first fragment is D after
//   its request, so the orchestration before the request counts, as does the flush and the polling delay);
// - COMPLETED: the first poll that sees it; overhead = that - F×D.
// Two kinds of turn: the first message of a new conversation (the workflow is started) and a follow-up in a
// conversation whose workflow is already running. Then GET /v1/chat/{id} (20 messages) under load next to a
// bare Hono route answering the same JSON, as bench/api.ts does for the applications list.
//
//   node --import tsx bench/chat.ts
//   BENCH_TURNS=10 BENCH_FRAGMENTS=40 BENCH_FRAGMENT_MS=25 BENCH_POLL_MS=20
//   BENCH_DURATION=10 (seconds of load per target, split over BENCH_ROUNDS=2 alternating rounds)
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { envInt, fixed, median, percentile, table } from './support.js';
import { listen, loadAverage, runBackendBench, startBenchBackend, startBenchProctor } from './backend.js';

const turns = envInt('BENCH_TURNS', 10);
const fragments = envInt('BENCH_FRAGMENTS', 40);
const fragmentMs = envInt('BENCH_FRAGMENT_MS', 25);
const pollMs = envInt('BENCH_POLL_MS', 20);
const duration = envInt('BENCH_DURATION', 10);
const rounds = envInt('BENCH_ROUNDS', 2);
const warmup = 2;
const connections = 50;
const modelMs = fragments * fragmentMs;

/** What the chat endpoints answer, as far as the bench reads it (an error answer has only `message`). */
interface Answer {
  shortId: string;
  messages: { role: string; status: string; text: string }[];
  message?: string;
}

interface Turn {
  kind: 'first message' | 'follow-up';
  acceptedMs: number;
  llmRequestMs: number;
  firstPartialMs: number;
  completedMs: number;
  partialStates: number;
}

await runBackendBench('bench/chat', 15, async (closers) => {
  const backend = await startBenchBackend(closers, 'chat');
  const { tools, llm, token } = backend;
  // The worker as `proctor worker` composes it (the browser pool starts Chromium only if a tool explores a page).
  const proctor = await startBenchProctor(closers, backend, {
    browser: { executablePath: tools.chromium, concurrency: 1, allowPrivateNetworks: true },
    llm: { apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted' },
    notify: { appUrl: 'http://127.0.0.1:3000' },
  });
  const apiUrl = proctor.url;
  const call = (method: string, path: string, body?: unknown) => proctor.call<Answer>(method, path, body);

  const waitCompleted = async (shortId: string) => {
    while ((await call('GET', `/v1/chat/${shortId}`)).body.messages[0]?.status !== 'COMPLETED')
      await new Promise((r) => setTimeout(r, pollMs));
  };

  const reply = Array.from({ length: fragments }, (_, i) => `word${i + 1}`).join(' ');
  /** One turn: POST, then poll until COMPLETED, checking the reply streamed in growing PARTIAL states. */
  async function timeTurn(
    kind: Turn['kind'],
    post: () => Promise<{ status: number; body: Answer }>,
  ): Promise<Turn & { shortId: string }> {
    let llmRequestAt = NaN;
    llm.enqueue(() => {
      llmRequestAt = performance.now();
      return { content: reply, fragmentDelayMs: fragmentMs };
    });
    const t0 = performance.now();
    const accepted = await post();
    const acceptedMs = performance.now() - t0;
    if (accepted.status !== 202) throw new Error(`POST answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
    const shortId = accepted.body.shortId;
    let firstPartialMs = NaN;
    const partials: string[] = [];
    for (;;) {
      const res = await call('GET', `/v1/chat/${shortId}`);
      const newest = res.body.messages?.[0];
      const at = performance.now() - t0;
      if (newest?.role === 'assistant' && newest.status === 'PARTIAL' && newest.text) {
        if (Number.isNaN(firstPartialMs)) firstPartialMs = at;
        if (partials.at(-1) !== newest.text) partials.push(newest.text);
      }
      if (newest?.role === 'assistant' && newest.status === 'COMPLETED') {
        if (newest.text !== reply) throw new Error(`the reply ended with other text: ${newest.text}`);
        if (!partials.every((p, i) => reply.startsWith(p) && (i === 0 || p.length > partials[i - 1]!.length)))
          throw new Error('PARTIAL texts did not grow');
        return {
          kind,
          shortId,
          acceptedMs,
          llmRequestMs: llmRequestAt - t0,
          firstPartialMs,
          completedMs: at,
          partialStates: partials.length,
        };
      }
      if (newest?.role === 'assistant' && ['FAILED', 'CANCELLED'].includes(newest.status))
        throw new Error(`the reply ended ${newest.status}: ${newest.text}`);
      if (at > 60_000) throw new Error(`chat ${shortId} did not complete: ${JSON.stringify(newest)}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  // One warm-up turn of each kind (workflow code loaded, connections open), then the measured ones. The
  // follow-ups all go to one conversation, which then holds the 20+ messages the GET load reads.
  const longId = (await timeTurn('first message', () => call('POST', '/v1/chat', { message: 'warm-up' }))).shortId;
  const measured: Turn[] = [];
  const followUp = (i: number) =>
    timeTurn('follow-up', () => call('POST', `/v1/chat/${longId}`, { message: `follow-up ${i}` }));
  await followUp(0);
  for (let i = 1; i <= turns; i++) {
    measured.push(await timeTurn('first message', () => call('POST', '/v1/chat', { message: `question ${i}` })));
    measured.push(await followUp(i));
  }

  const out = (s: string) => process.stdout.write(s);
  out(
    `model: ${fragments} fragments, one every ${fragmentMs} ms (${modelMs} ms from its request); polling every ${pollMs} ms; ${turns} turns of each kind\n\n`,
  );
  const rows: (string | number)[][] = [];
  for (const kind of ['first message', 'follow-up'] as const) {
    const of = (pick: (t: Turn) => number) => measured.filter((t) => t.kind === kind).map(pick);
    const cell = (values: number[]) => `${fixed(median(values), 0)} / ${fixed(percentile(values, 90), 0)}`;
    rows.push([
      kind,
      cell(of((t) => t.acceptedMs)),
      cell(of((t) => t.llmRequestMs)),
      cell(of((t) => t.firstPartialMs)),
      cell(of((t) => t.firstPartialMs - fragmentMs)),
      cell(of((t) => t.completedMs)),
      cell(of((t) => t.completedMs - modelMs)),
      fixed(median(of((t) => t.partialStates)), 0),
    ]);
  }
  out('median / p90 ms from the POST\n');
  out(
    table(['turn', '202', 'LLM request', 'first PARTIAL', 'overhead', 'COMPLETED', 'overhead', 'PARTIAL states'], rows),
  );

  // GET /v1/chat/{id} under load against a bare route serving the same body: a full page of 20 messages.
  for (let i = 0; (await call('GET', `/v1/chat/${longId}`)).body.messages.length < 20; i++) {
    llm.enqueue({ content: reply });
    await call('POST', `/v1/chat/${longId}`, { message: `filler ${i}` });
    await waitCompleted(longId);
  }
  const path = `/v1/chat/${longId}`;
  const sample = await call('GET', path);
  if (sample.status !== 200 || sample.body.messages.length !== 20)
    throw new Error(`GET ${path}: ${sample.status}, ${sample.body.messages?.length} messages`);
  const bareUrl = await listen(closers, new Hono().get(path, (c) => c.json(sample.body)).fetch);
  const load = (url: string, seconds: number) =>
    autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` }, workers: 1 });
  // The cheapest authenticated read (bench/api.ts's route) too: on a machine shared with other work, absolute
  // figures move a lot, so the targets take turns (rounds) and the ratio to that route says what the chat adds.
  const targets = [
    ['proctor GET /v1/chat/{id}', apiUrl + path],
    ['bare hono route', bareUrl + path],
    ['proctor GET /v1/applications', `${apiUrl}/v1/applications`],
  ] as const;
  const runs = targets.map(() => [] as autocannon.Result[]);
  for (const [, url] of targets) await load(url, warmup);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, url]] of targets.entries()) runs[i]!.push(await load(url, duration / rounds));
  }
  // One request at a time: the cost of a request without queueing behind 49 others.
  const alone: number[][] = [];
  for (const [, url] of targets) {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
      times.push(performance.now() - t0);
    }
    alone.push(times);
  }
  const avg = (rs: autocannon.Result[], pick: (r: autocannon.Result) => number) =>
    rs.reduce((sum, r) => sum + pick(r), 0) / rs.length;
  out(
    `\nGET ${path}: 20 messages, ${JSON.stringify(sample.body).length} B body; ${connections} connections, ${rounds} rounds of ${duration / rounds} s per target after ${warmup} s warm-up; then 200 requests one at a time\n`,
  );
  out(
    table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'alone median ms'],
      targets.map(([name], i) => {
        const rs = runs[i]!;
        return [
          name,
          Math.round(avg(rs, (r) => r.requests.average)),
          fixed(
            avg(rs, (r) => r.latency.p50),
            0,
          ),
          fixed(
            avg(rs, (r) => r.latency.p99),
            0,
          ),
          avg(rs, (r) => r.errors) * rs.length,
          avg(rs, (r) => r.non2xx) * rs.length,
          fixed(median(alone[i]!), 2),
        ];
      }),
    ),
  );
  const [chat, bare, apps] = runs.map((rs) => avg(rs, (r) => r.requests.average)) as [number, number, number];
  out(
    `chat / bare req/s: ${fixed(chat / bare, 3)}; chat / applications req/s: ${fixed(chat / apps, 2)}; load average ${loadAverage()}\n`,
  );
});
