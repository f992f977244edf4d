// `proctor tunnel`: creates a remote tunnel through the API, prints its URLs and keeps the local ports
// reachable until Ctrl-C (which deletes the tunnel) or until the tunnel is deleted or expires server-side.
import { parseArgs } from 'node:util';
import { startTunnelClient, type StopReason } from '../tunnels/client.js';

const usage = `proctor tunnel --port PORT [--port PORT …] [options]

  --port [NAME=]PORT   a local port to expose (repeatable); NAME becomes the start of its hostname
  --https              the local ports speak HTTPS (self-signed certificates are accepted)
  --public             anyone with the URL may reach it (default: only Proctor's agents)
  --token TOKEN        project API token (default: PROCTOR_TOKEN)
  --api-url URL        Proctor's API (default: PROCTOR_API_URL, else http://127.0.0.1:3000)
  --connections N      edge connections to hold (default 4; fewer shows as degraded)
`;

interface Created {
  runnerId: string;
  hostnames: Array<{ localPort: number; url: string }>;
  tunnelToken: string;
  expiresAt: string;
}

function parsePort(spec: string): { localPort: number; subdomain?: string } {
  const match = /^(?:([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)=)?(\d{1,5})$/.exec(spec);
  const localPort = Number(match?.[2]);
  if (!match || localPort < 1 || localPort > 65535) throw new Error(`--port ${spec}: expected PORT or NAME=PORT`);
  return { localPort, subdomain: match[1] };
}

const stopMessages: Record<StopReason, string> = {
  stopped: 'tunnel stopped',
  deleted: 'the tunnel was deleted; stopping',
  expired: 'the tunnel expired (12 hours); stopping',
  unauthorized: 'the tunnel token was refused (tunnel deleted?); stopping',
};

export async function runTunnel(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', multiple: true },
      https: { type: 'boolean' },
      public: { type: 'boolean' },
      token: { type: 'string' },
      'api-url': { type: 'string' },
      connections: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const token = values.token ?? env.PROCTOR_TOKEN;
  const apiUrl = (values['api-url'] ?? env.PROCTOR_API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
  if (!values.port?.length || !token) {
    process.stderr.write(
      `${!token ? 'a token is required (--token or PROCTOR_TOKEN)' : 'at least one --port is required'}\n\n${usage}`,
    );
    return 1;
  }
  const ports = values.port.map(parsePort);
  const connections = values.connections ? Number(values.connections) : 4;
  if (!Number.isInteger(connections) || connections < 1 || connections > 16)
    throw new Error('--connections: expected 1 to 16');
  const protocol = values.https ? 'https' : 'http';

  const api = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const res = await api('POST', '/v1/remote-tunnels', {
    ports: ports.map((p) => ({ ...p, protocol })),
    public: values.public ?? false,
  });
  if (res.status !== 200) {
    const message = ((await res.json().catch(() => ({}))) as { message?: string }).message ?? res.statusText;
    process.stderr.write(`could not create the tunnel: ${res.status} ${message}\n`);
    return 1;
  }
  const tunnel = (await res.json()) as Created;
  process.stdout.write(
    [
      `tunnel ${tunnel.runnerId} (expires ${tunnel.expiresAt})`,
      ...tunnel.hostnames.map((h) => `  localhost:${h.localPort} -> ${h.url}`),
      '',
    ].join('\n'),
  );

  let lastOpen = -1;
  const client = startTunnelClient({
    apiUrl,
    tunnelToken: tunnel.tunnelToken,
    ports: new Map(ports.map((p) => [p.localPort, protocol])),
    connections,
    onEvent(event) {
      if (event.type === 'stopped') return;
      if (event.open === lastOpen) return;
      lastOpen = event.open;
      process.stdout.write(
        `connections ${event.open}/${connections}${event.type === 'disconnected' ? ` (reconnecting in ${event.retryInMs} ms)` : ''}\n`,
      );
    },
  });

  const onSignal = () => void client.stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const reason = await client.done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (reason === 'stopped') {
    const deleted = await api('DELETE', `/v1/remote-tunnels/${tunnel.runnerId}`).catch(() => undefined);
    if (deleted && deleted.status !== 200 && deleted.status !== 404)
      process.stderr.write(`could not delete the tunnel: ${deleted.status}\n`);
  }
  process.stdout.write(`${stopMessages[reason]}\n`);
  return reason === 'unauthorized' ? 1 : 0;
}
