import { createServer, type Server } from 'node:http';
import { SMTPServer } from 'smtp-server';
import { listenOnFreePort } from './net.js';

/** A real SMTP server on loopback that keeps every message it receives. */
export async function startSmtpSink(): Promise<{
  url: string;
  messages: { to: string[]; raw: string }[];
  stop(): Promise<void>;
}> {
  const messages: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const port = await listenOnFreePort(server.server);
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A real HTTP server that records the JSON bodies posted to it (a chat-tool incoming webhook). */
export async function startWebhookSink(): Promise<{ url: string; bodies: any[]; stop(): Promise<void> }> {
  const bodies: any[] = [];
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(data || 'null'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/hooks/T000/B000/secret`,
    bodies,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
