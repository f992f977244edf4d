// A TCP proxy in front of a real server, to make that server unreachable for a while without stopping it: `cut()`
// drops every open connection and refuses new ones (as a network partition or a dead host's RST would), `restore()`
// lets them through again. The address clients use never changes.
import { createServer, connect, type Socket } from 'node:net';
import { listenOnFreePort } from './net.js';

export interface TcpProxy {
  /** host:port clients connect to. */
  address: string;
  url: (scheme: string) => string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server = createServer((client) => {
    track(client);
    if (!open) return client.resetAndDestroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', end);
    upstream.once('error', end);
    client.once('close', end);
    upstream.once('close', end);
  });
  const port = await listenOnFreePort(server);
  const address = `127.0.0.1:${port}`;
  return {
    address,
    url: (scheme) => `${scheme}://${address}`,
    cut() {
      open = false;
      for (const s of sockets) s.resetAndDestroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
