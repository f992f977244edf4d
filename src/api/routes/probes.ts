// Kubernetes-style probes, outside the OpenAPI document (they are for the platform, not API clients):
// `/livez` says the process answers; `/readyz` says which dependency is missing while it is (503 until it is back).
// `/healthz` stays what it was: the API's reachability report for people and `proctor` clients.
import type { OpenApiApp } from '../openapi.js';
import { checkReadiness, processProbes } from '../../services/readiness.js';

export function registerProbes(app: OpenApiApp): void {
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const { ready, checks } = await checkReadiness(processProbes(c.get('deps')));
    return c.json({ status: ready ? 'ready' : 'unready', checks }, ready ? 200 : 503);
  });
}
