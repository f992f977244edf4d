// Kubernetes-style probes, outside the OpenAPI document (they are for the platform, not API clients):
// `/livez` says the process answers; `/readyz` says which dependency is missing while it is (503 until it is back).
// `/readyz?need=database` reports every dependency but answers 503 only for those named: the Helm chart's API pods
// need only the database to serve, so an outage of Temporal (shared by every pod) does not empty the Service of
// pods that can still answer reads and say clearly what failed.
// `/healthz` stays what it was: the API's reachability report for people and `proctor` clients.
import type { OpenApiApp } from '../openapi.js';
import { checkReadiness, processProbes } from '../../services/readiness.js';

export function registerProbes(app: OpenApiApp): void {
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const { checks } = await checkReadiness(processProbes(c.get('deps')));
    const need = c.req.query('need')?.split(',');
    const unknown = need?.filter((name) => !(name in checks)) ?? [];
    if (unknown.length > 0)
      return c.json(
        { message: `need: no dependency named ${unknown.join(', ')} (${Object.keys(checks).join(', ')})` },
        400,
      );
    const ready = Object.entries(checks).every(([name, check]) => check.ok || (need && !need.includes(name)));
    return c.json({ status: ready ? 'ready' : 'unready', checks }, ready ? 200 : 503);
  });
}
