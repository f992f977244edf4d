// The pure parts: which hosts are tunnel hosts, status from a connection count, and the frame format.
import { describe, expect, it } from 'vitest';
import { parseTunnelHost, tunnelStatus, tunnelUrl } from '../../src/domain/tunnels.js';
import { decodeFrame, encodeFrame, endToEndHeaders, FrameType, parseHead } from '../../src/tunnels/protocol.js';

describe('tunnel hostnames', () => {
  const domain = 'tunnel.example.com:3000';

  it('builds a URL per port that parses back to its subdomain and label', () => {
    const url = tunnelUrl('web', 'k3x9q2m7p1za', domain);
    expect(url).toBe('http://web-k3x9q2m7p1za.tunnel.example.com:3000');
    expect(parseTunnelHost(new URL(url).host, domain)).toEqual({ subdomain: 'web', label: 'k3x9q2m7p1za' });
    expect(parseTunnelHost('my-app-k3x9q2m7p1za.tunnel.example.com', domain)).toEqual({
      subdomain: 'my-app',
      label: 'k3x9q2m7p1za',
    });
    expect(parseTunnelHost('WEB-K3X9Q2M7P1ZA.Tunnel.Example.com.', domain)).toEqual({
      subdomain: 'web',
      label: 'k3x9q2m7p1za',
    });
  });

  it('refuses hosts outside the domain or of another shape', () => {
    for (const host of [
      'tunnel.example.com',
      'web-abc.tunnel.example.org',
      'a.web-abc.tunnel.example.com',
      'webabc.tunnel.example.com',
      '-abc.tunnel.example.com',
      'web-.tunnel.example.com',
      'evil-tunnel.example.com',
    ]) {
      expect(parseTunnelHost(host, domain), host).toBeUndefined();
    }
  });

  it('derives status from the live connection count as the spec says', () => {
    expect([0, 1, 2, 3, 4, 7].map(tunnelStatus)).toEqual([
      'inactive',
      'degraded',
      'degraded',
      'degraded',
      'healthy',
      'healthy',
    ]);
  });
});

describe('wire frames', () => {
  it('round-trips type, stream id and payload', () => {
    const frame = decodeFrame(encodeFrame(FrameType.DATA, 0xfffffffe, Buffer.from([0, 1, 2, 255])));
    expect(frame).toEqual({ type: FrameType.DATA, stream: 0xfffffffe, payload: Buffer.from([0, 1, 2, 255]) });
    const head = decodeFrame(
      encodeFrame(FrameType.REQUEST, 7, { port: 3000, method: 'GET', path: '/?q=1', headers: ['Accept', '*/*'] }),
    )!;
    expect(parseHead(head.payload, 'request')).toEqual({
      port: 3000,
      method: 'GET',
      path: '/?q=1',
      headers: ['Accept', '*/*'],
    });
  });

  it('drops malformed frames and heads', () => {
    expect(decodeFrame(Buffer.from([1, 0, 0]))).toBeUndefined();
    expect(decodeFrame(Buffer.from([9, 0, 0, 0, 1]))).toBeUndefined();
    expect(parseHead(Buffer.from('{"status":200,"headers":["odd"]}'), 'response')).toBeUndefined();
    expect(parseHead(Buffer.from('not json'), 'response')).toBeUndefined();
    expect(parseHead(Buffer.from('{"method":"GET","path":"/","headers":[]}'), 'request')).toBeUndefined();
  });

  it('strips hop-by-hop headers, keeping the upgrade pair only for a protocol switch', () => {
    // The protocol switch: Connection names the headers it covers (Upgrade and X-Private).
    const upgrade = ['Connection', 'Upgrade, X-Private', 'Upgrade', 'websocket', 'X-Private', '1'];
    const raw = ['Host', 'x', ...upgrade, 'Transfer-Encoding', 'chunked', 'Sec-WebSocket-Key', 'k'];
    expect(endToEndHeaders(raw)).toEqual(['Host', 'x', 'Sec-WebSocket-Key', 'k']);
    expect(endToEndHeaders(raw, { keepUpgrade: true })).toEqual(['Host', 'x', ...upgrade, 'Sec-WebSocket-Key', 'k']);
    expect(endToEndHeaders(raw, { drop: ['host'] })).toEqual(['Sec-WebSocket-Key', 'k']);
  });
});
