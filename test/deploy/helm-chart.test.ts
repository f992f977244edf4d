// The Helm chart (deploy/helm/proctor): linted, rendered over a matrix of values, every manifest checked against the
// Kubernetes schema offline, and what an operator relies on checked by name: probes on the right paths and ports,
// the worker's grace period longer than its drain, the migration as a hook, disruption budgets that select real pods,
// autoscaling on the task queue, and no variable the processes would not read.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { settingNames } from '../../src/config.js';
import { loadPrograms } from '../../src/programs.js';

const run = promisify(execFile);
const chart = 'deploy/helm/proctor';
const kubeVersion = '1.31.0';
const programs = loadPrograms();
const tool = (name: 'helm' | 'kubernetesValidate'): string => {
  const path = programs[name];
  if (!path) throw new Error(`${name} not installed: run npm run setup:test`);
  return path;
};
const scratch = mkdtempSync(join(tmpdir(), 'proctor-helm-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: any;
};

const render = async (sets: string[]): Promise<{ text: string; manifests: Manifest[] }> => {
  const args = ['template', 'proctor', chart, '--kube-version', kubeVersion, ...sets.flatMap((s) => ['--set', s])];
  const { stdout } = await run(tool('helm'), args);
  const manifests = parseAllDocuments(stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  return { text: stdout, manifests };
};

/** kubernetes-validate's verdict on a file of manifests: its exit code and what it printed. */
const validate = async (text: string, name: string) => {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(file, text);
  return run(tool('kubernetesValidate'), ['--strict', '-k', kubeVersion, file]).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
  );
};

const byKind = (ms: Manifest[], kind: string, nameEnd = '') =>
  ms.filter((m) => m.kind === kind && m.metadata.name.endsWith(nameEnd));
const one = (ms: Manifest[], kind: string, nameEnd = ''): Manifest => {
  const found = byKind(ms, kind, nameEnd);
  expect(found, `${kind} *${nameEnd}`).toHaveLength(1);
  return found[0]!;
};

const container = (m: Manifest): any => m.spec.template.spec.containers[0];

const envOf = (m: Manifest): Map<string, string> => new Map(container(m).env.map((e: any) => [e.name, e.value]));

const variants: Record<string, string[]> = {
  defaults: [],
  'autoscaling with KEDA': ['autoscaling.enabled=true'],
  'autoscaling with an HPA': ['autoscaling.enabled=true', 'autoscaling.kind=hpa'],
  'own service account, pinned image, extra settings': [
    'serviceAccount.create=false',
    'serviceAccount.name=ci-runner',
    'image.tag=1.2.3',
    'extraEnv.PROCTOR_RUN_CONCURRENCY=50',
    'config.OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318',
    'worker.drainSeconds=600',
  ],
};

describe('the Helm chart', () => {
  it('passes helm lint --strict, with and without autoscaling', async () => {
    for (const sets of [[], ['autoscaling.enabled=true'], ['autoscaling.enabled=true', 'autoscaling.kind=hpa']]) {
      const { stdout } = await run(tool('helm'), ['lint', '--strict', chart, ...sets.flatMap((s) => ['--set', s])]);
      expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it.each(Object.entries(variants))('renders manifests Kubernetes accepts: %s', async (name, sets) => {
    const { text, manifests } = await render(sets);
    const verdict = await validate(text, name.replace(/\W+/g, '-'));
    expect(verdict.code, verdict.out).toBe(0);
    // Every manifest was checked against a schema, except KEDA's own kind, which Kubernetes does not define.
    const checked = verdict.out.split('\n').filter((l) => l.includes(' passed for resource ')).length;
    expect(checked).toBe(manifests.filter((m) => m.kind !== 'ScaledObject').length);

    const api = one(manifests, 'Deployment', '-api');
    const worker = one(manifests, 'Deployment', '-worker');
    const migrate = one(manifests, 'Job', '-migrate');
    // No variable a process would not read (a typo would be silently ignored in production).
    // POD_IP: the downward API's, only there to be expanded into the API's PROCTOR_EDGE_URL.
    const podIp = { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };
    for (const m of [api, worker, migrate]) {
      for (const variable of envOf(m).keys())
        expect(
          settingNames.includes(variable) || variable.startsWith('OTEL_') || (m === api && variable === 'POD_IP'),
          `${m.metadata.name}: ${variable}`,
        ).toBe(true);
      expect(container(m).envFrom).toEqual([{ secretRef: { name: 'proctor' } }]);
    }
    // Probes: alive is the process; the API's readiness needs the database only (see api.yaml).
    const apiPort = container(api).ports[0];
    expect(container(api).livenessProbe.httpGet).toEqual({ path: '/livez', port: apiPort.name });
    expect(container(api).readinessProbe.httpGet).toEqual({ path: '/readyz?need=database', port: apiPort.name });
    const service = one(manifests, 'Service', '-api');
    expect(service.spec.ports[0].targetPort).toBe(apiPort.name);
    expect(service.spec.selector).toEqual(api.spec.template.metadata.labels);
    expect(Number(envOf(api).get('PORT'))).toBe(apiPort.containerPort);
    // Each API pod registers its own address for the tunnel relay (one shared address would break it: see api.yaml),
    // the pod's IP set before it is used (Kubernetes expands $(VAR) from the entries above it only).
    const apiEnv = container(api).env.map((e: { name: string }) => e.name);
    expect(container(api).env).toContainEqual(podIp);
    expect(envOf(api).get('PROCTOR_EDGE_URL')).toBe(`http://$(POD_IP):${apiPort.containerPort}`);
    expect(apiEnv.indexOf('POD_IP')).toBeLessThan(apiEnv.indexOf('PROCTOR_EDGE_URL'));
    // The worker: its grace period outlasts its drain, Chromium gets a real /dev/shm, tunnels reach the API Service.
    const drain = Number(envOf(worker).get('PROCTOR_WORKER_DRAIN_SECONDS'));
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drain);
    expect(worker.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(worker.spec.template.spec.volumes).toContainEqual({
      name: 'dshm',
      emptyDir: { medium: 'Memory', sizeLimit: '1Gi' },
    });
    expect(envOf(worker).get('PROCTOR_EDGE_URL')).toBe(`http://${service.metadata.name}:${service.spec.ports[0].port}`);
    const metricsPort = container(worker).ports.find((p: { name: string }) => p.name === 'metrics');
    expect(Number(envOf(worker).get('PROCTOR_METRICS_PORT'))).toBe(metricsPort.containerPort);
    // The migration runs to completion before an install or upgrade rolls anything out.
    expect(migrate.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(container(migrate).args).toEqual(['migrate']);
    // Each disruption budget selects the pods of one Deployment.
    for (const [pdb, deployment] of [
      [one(manifests, 'PodDisruptionBudget', '-api'), api],
      [one(manifests, 'PodDisruptionBudget', '-worker'), worker],
    ] as const)
      expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
  });

  it('scales the workers on the task queue the processes use: KEDA by default, else an HPA on the backlog metric', async () => {
    const keda = (await render(['autoscaling.enabled=true', 'config.TEMPORAL_TASK_QUEUE=shop-tests'])).manifests;
    const worker = one(keda, 'Deployment', '-worker');
    expect(worker.spec.replicas, 'the autoscaler owns the count').toBeUndefined();
    const scaled = one(keda, 'ScaledObject');
    expect(scaled.spec).toMatchObject({
      scaleTargetRef: { name: worker.metadata.name },
      minReplicaCount: 2,
      maxReplicaCount: 25,
      triggers: [
        {
          type: 'temporal',
          metadata: {
            endpoint: 'temporal-frontend.temporal.svc.cluster.local:7233',
            namespace: 'default',
            taskQueue: 'shop-tests',
            targetQueueSize: '4',
          },
        },
      ],
    });
    const hpa = one(
      (await render(['autoscaling.enabled=true', 'autoscaling.kind=hpa'])).manifests,
      'HorizontalPodAutoscaler',
    );
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: worker.metadata.name });
    expect(hpa.spec.metrics[0].external.metric).toEqual({
      name: 'proctor_task_queue_backlog',
      selector: { matchLabels: { task_queue: 'proctor' } },
    });
    expect(byKind((await render([])).manifests, 'ScaledObject')).toEqual([]);
  });

  it('refuses what it cannot render, and the schema check is live', async () => {
    await expect(render(['autoscaling.enabled=true', 'autoscaling.kind=cpu'])).rejects.toThrow(
      /autoscaling.kind must be keda or hpa, not "cpu"/,
    );
    await expect(render(['existingSecret='])).rejects.toThrow(/existingSecret: the Secret holding DATABASE_URL/);
    // A manifest Kubernetes would refuse is refused here too: the check above is not vacuous.
    const { text } = await render([]);
    const broken = await validate(text.replace(/replicas: 2/, 'replicas: two'), 'broken');
    expect(broken.code).not.toBe(0);
    expect(broken.out).toMatch(/replicas/);
  });
});
