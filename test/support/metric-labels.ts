// Every label Proctor's metrics may carry, with the closed set of values it takes. A label not listed here fails
// test/unit/metrics.test.ts, so a new one is added with its values, or as `configured` when the operator's
// settings bound it (the model, the task queue): never an id, a project or text a client sent.
import { stepActions } from '../../src/domain/steps.js';

export const configured = Symbol('configured by the operator');

export const metricLabels: Record<string, readonly string[] | typeof configured> = {
  result: ['passed', 'failed', 'skipped', 'error', 'cancelled', 'none', 'completed'],
  outcome: [
    'ok',
    'failed',
    'stored',
    'unknown_recipient',
    'too_large',
    'accepted',
    'ignored',
    'invalid',
    'unauthorized',
  ],
  action: stepActions,
  role: ['burn_in', 'heal', 'chat', 'review'],
  kind: ['prompt', 'completion', 'cached'],
  provider: ['github', 'gitlab'],
  type: ['workflow', 'activity'],
  model: configured,
  task_queue: configured,
  // A histogram's bucket bound, added by Prometheus' format.
  le: configured,
};
