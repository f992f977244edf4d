// A developer's app for the tunnel tests and bench (no vitest imports: bench/tunnel.ts uses it too).
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { listenOnFreePort } from './net.js';

export const bigDownloadBytes = 10 * 1024 * 1024;
/** The 10 MB body `/big` serves: deterministic, so its digest is known without downloading it directly. */
export const bigBody = Buffer.alloc(bigDownloadBytes, 0).map((_, i) => (i * 7 + 3) & 0xff);
export const bigDigest = createHash('sha256').update(bigBody).digest('hex');

/**
 * A developer's app on a loopback port: a page that shows server-sent events and a WebSocket echo, the
 * events and echo themselves, a body echo, a 10 MB download and a small page for benchmarks.
 */
export async function startLocalApp(): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const page = `<!doctype html><html><head><title>Local app</title></head><body>
<h1>Running on my machine</h1>
<p id="host"></p><p id="sse">sse: waiting</p><p id="ws">ws: waiting</p>
<script>
document.getElementById('host').textContent = 'host: ' + location.host;
const events = new EventSource('/events');
events.onmessage = (e) => { document.getElementById('sse').textContent = 'sse: ' + e.data; if (e.data === 'tick 3') events.close(); };
const socket = new WebSocket('ws://' + location.host + '/ws');
socket.onopen = () => socket.send('hello through the tunnel');
socket.onmessage = (e) => { document.getElementById('ws').textContent = 'ws: ' + e.data; };
</script></body></html>`;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else if (path === '/small') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let n = 0;
      const timer = setInterval(() => {
        n += 1;
        res.write(`data: tick ${n}\n\n`);
        if (n === 3) clearInterval(timer);
      }, 150);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/big') {
      res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bigBody.length) })
        .end(bigBody);
    } else if (path === '/echo' && req.method === 'POST') {
      res.writeHead(200, {
        'content-type': req.headers['content-type'] ?? 'application/octet-stream',
        'x-seen-host': req.headers.host ?? '',
      });
      req.pipe(res);
    } else {
      res.writeHead(404).end('not found');
    }
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (ws) =>
    ws.on('message', (data, isBinary) => ws.send(isBinary ? data : `echo ${data.toString()}`)),
  );
  const port = await listenOnFreePort(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
