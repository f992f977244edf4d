import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { activeTracing, startTracing, type Tracing } from '../../src/tracing-setup.js';
import { installRuntimeWithoutSignalHandlers } from '../../src/worker/worker.js';
import { refOf, tool } from '../support/agent-script.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startOtlpCollector, type OtlpCollector, type ReceivedSpan } from '../support/otlp-collector.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { waitFor } from '../support/net.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';

// Issue 35, traces and logs: a plan run on the real stack (API, Temporal, worker, Chromium, Postgres, the scripted
// model) with the standard OTEL_* variables pointing at an OTLP collector stand-in. The run's trace goes from the
// API request through the Temporal client, the workflow and its activity to each browser step and the model call
// of a heal; the run's answer and its log lines name that trace; no secret reaches a log line.

describe('tracing off: no OTEL_* variables', () => {
  it('installs no tracer provider, whatever else is set; a span made through the API records nothing', () => {
    for (const env of [
      {},
      { OTEL_SERVICE_NAME: 'proctor' },
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:1/v1/traces' },
    ]) {
      expect(startTracing('proctor-test', env), JSON.stringify(env)).toBeUndefined();
      expect(activeTracing()).toBeUndefined();
      const span = trace.getTracer('probe').startSpan('probe');
      expect(span.isRecording()).toBe(false);
      span.end();
    }
  });
});

describe('a plan run traced from the API request to the browser step and the LLM call', () => {
  let collector: OtlpCollector;
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let tracing: Tracing;
  const lines: string[] = [];
  let run: any;
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    [collector, fixture, llm] = await Promise.all([startOtlpCollector(), startFixtureApps(), startScriptedLlm()]);
    const logger = createLogger('debug', { process: 'test' }, (line) => lines.push(line));
    // As `proctor worker` does: Temporal's own lines through the JSON logger, then tracing from the environment.
    installRuntimeWithoutSignalHandlers({ logger });
    tracing = startTracing('proctor-test', {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'proctor-e2e',
    })!;
    expect(tracing).toBeDefined();
    stack = await startStack({ llm, logger });

    const app = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body;
    await stack.call('POST', `/v1/applications/${app.shortId}/environments`, {
      name: 'Local',
      url: `${fixture.url}/todo/`,
    });
    const testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: await applicationIdOf(stack.db, app.shortId),
      name: 'archive all',
      // The button is gone: the run heals, asking the model for the element (one call).
      steps: [
        { action: 'navigate', value: '/todo/', description: 'Open the todo app' },
        {
          action: 'click',
          locator: "getByRole('button', { name: 'Archive everything' })",
          description: 'Archive every todo',
        },
      ],
    });
    llm.enqueue((r) => tool('select_element', { ref: refOf(r, /textbox "New todo"/), reason: 'the only control' }));
    const plan = await stack.call('POST', '/v1/test-plans', { name: 'Traced', testCaseIds: [testCaseId] });
    expect(plan.status).toBe(201);
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    run = await waitForRun(stack, started.body.run.shortId);
    // The run's row ends before its workflow does; the workflow's span is handed out as it completes.
    await (await stack.temporal.get()).workflow.getHandle(`run:${run.shortId}`).result();
    await waitFor(
      async () => {
        await tracing.flush();
        return collector.spans.some((s) => s.traceId === run.traceId && s.name === 'RunWorkflow:planRun');
      },
      10_000,
      "the workflow's span",
    );
    spans = collector.spans.filter((s) => s.traceId === run.traceId);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await tracing?.shutdown();
    await Promise.all([collector?.stop(), fixture?.stop(), llm?.stop()]);
  });

  const named = (pattern: RegExp) => spans.filter((s) => pattern.test(s.name));
  const one = (pattern: RegExp) => {
    const found = named(pattern);
    expect(
      found.map((s) => s.name),
      `one span named ${pattern} in ${spans.map((s) => s.name).join(', ')}`,
    ).toHaveLength(1);
    return found[0]!;
  };
  /** The names from a span up to its trace's root. */
  const ancestry = (span: ReceivedSpan): string[] => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const names: string[] = [];
    for (let s: ReceivedSpan | undefined = span; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined)
      names.push(s.name);
    return names;
  };

  it("answers the run with the trace it was started in, and the collector received that trace's spans", () => {
    expect(run.status).toBe('COMPLETED');
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.length).toBeGreaterThan(5);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['proctor-e2e']));
  });

  it('starts at the API request, named by its route, with its status and the run it created', () => {
    const request = one(/^POST \/v1\/run$/);
    expect(request.parentSpanId).toBeUndefined();
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/run',
      'http.response.status_code': 200,
      'proctor.run.id': run.id,
      'proctor.run.short_id': run.shortId,
      'proctor.project.id': stack.tenant.projectId,
    });
  });

  it('goes through the Temporal client start, the workflow and its activity, each naming the run', () => {
    expect(ancestry(one(/^StartWorkflow:planRun$/))).toEqual(['StartWorkflow:planRun', 'POST /v1/run']);
    const workflow = one(/^RunWorkflow:planRun$/);
    expect(ancestry(workflow)).toEqual(['RunWorkflow:planRun', 'StartWorkflow:planRun', 'POST /v1/run']);
    expect(workflow.attributes['proctor.run.short_id']).toBe(run.shortId);
    const activity = one(/^RunActivity:runPlanTests$/);
    expect(ancestry(activity).slice(-3)).toEqual(['RunWorkflow:planRun', 'StartWorkflow:planRun', 'POST /v1/run']);
    expect(activity.attributes).toMatchObject({
      'proctor.run.id': run.id,
      'proctor.run.short_id': run.shortId,
      'proctor.project.id': stack.tenant.projectId,
    });
  });

  it('down to a span per browser step and the model call of the heal, with model, role and tokens', () => {
    const steps = named(/^step /);
    // Each attempt of the test replays both steps (a heal the model cannot answer is retried as infrastructure).
    expect(new Set(steps.map((s) => `${s.name} ${s.attributes['proctor.step.index']}`))).toEqual(
      new Set(['step navigate 0', 'step click 1']),
    );
    for (const step of steps) {
      expect(ancestry(step)).toContain('RunActivity:runPlanTests');
      expect(ancestry(step).at(-1)).toBe('POST /v1/run');
      expect(step.attributes['proctor.run.id']).toBe(run.id);
    }
    // The heal's calls (the model's pick is refused, and it is asked again); the worker's start-up probe of the
    // endpoint asks outside any run.
    const calls = named(/^chat /);
    expect(calls.length).toBeGreaterThan(0);
    const call = calls[0]!;
    expect(call.name).toBe('chat scripted');
    // The heal is the click step's: its span is the call's parent.
    expect(ancestry(call).slice(0, 2)).toEqual(['chat scripted', 'step click']);
    expect(ancestry(call).at(-1)).toBe('POST /v1/run');
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted',
      'proctor.llm.role': 'heal',
      'proctor.run.id': run.id,
    });
    const tokens = [call.attributes['gen_ai.usage.input_tokens'], call.attributes['gen_ai.usage.output_tokens']];
    expect(llm.usageSent.map((u) => [u.prompt_tokens, u.completion_tokens])).toContainEqual(tokens);
    expect(tokens[0]).toBeGreaterThan(0);
  });

  it("logs JSON lines carrying the run's trace, with the workflow and activity, and no secret", () => {
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ofRun = parsed.filter((l) => l.traceId === run.traceId);
    expect(ofRun.length, lines.slice(0, 20).join('\n')).toBeGreaterThan(0);
    const inActivity = ofRun.find((l) => l.activityType === 'runPlanTests');
    expect(inActivity, JSON.stringify(ofRun.slice(0, 10))).toMatchObject({
      workflowId: `run:${run.shortId}`,
      activityId: expect.any(String),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const all = lines.join('\n');
    expect(all).not.toContain(stack.tenant.token);
    expect(all).not.toContain(llm.apiKey);
  });
});
