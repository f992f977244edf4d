// SSRF guard for the browser: the pages under test are the user's, so they must not reach cloud metadata,
// link-local addresses, or (unless the deployment allows it) the private networks around the worker.
//
// Two layers, because Playwright's routing alone cannot do it:
// - `installNetworkGuard` routes every request of a context and aborts refused ones with
//   ERR_BLOCKED_BY_CLIENT. It sees the first hop of each request only: Playwright continues redirect hops
//   (`requestWillBeSent` with `redirectResponse`) itself without calling route handlers. Fulfilling a
//   `route.fetch({ maxRedirects: 0 })` 3xx does not help either: the browser follows it as a redirect hop,
//   again unrouted, so only one hop of a chain would be checked.
// - `startEgressProxy` is an HTTP proxy that each browser context is created with. Every hop of every
//   request (redirects, subresources, WebSockets, service workers) reaches it as its own proxy request or
//   CONNECT tunnel. It resolves names itself and connects to the very addresses it checked, so Chromium never
//   resolves a name and a DNS-rebinding race between check and connect cannot happen. (Without the proxy,
//   pinning names would need Chromium's `--host-resolver-rules`.)
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { BrowserContext } from 'playwright-core';

export type GuardVerdict =
  | { allowed: true }
  /** `unresolved`: the host name does not resolve; a fault of the URL rather than a policy refusal. */
  | { allowed: false; reason: string; unresolved?: boolean };

export type BlockedListener = (url: string, reason: string) => void;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export interface NetworkGuard {
  readonly allowPrivateNetworks: boolean;
  check(url: string): Promise<GuardVerdict>;
  /** A `node:net` lookup that yields only addresses the guard allows: connections made with it are pinned to checked addresses. */
  lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void;
}

export interface NetworkGuardOptions {
  allowPrivateNetworks: boolean;
  /** Host name to addresses; defaults to the system resolver (`lookup` with `all: true`). */
  resolve?: (host: string) => Promise<string[]>;
  /** How long a resolution is reused. */
  cacheTtlMs?: number;
  /**
   * Remote-tunnel hostnames: allowed by `check` because the egress proxy sends them to a tunnel edge
   * instead of resolving them (`lookup` never allows them).
   */
  isTunnelHost?: (hostname: string) => boolean;
}

// Schemes a page may use without touching the network.
const localSchemes = new Set(['data:', 'blob:']);
const networkSchemes = new Set(['http:', 'https:', 'ws:', 'wss:']);
const aboutPages = new Set(['about:blank', 'about:srcdoc']);

const metadataHosts = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
}

function cidr(spec: string): Cidr {
  const [address, bits] = spec.split('/') as [string, string | undefined];
  const family = isIP(address) as 4 | 6;
  return { family, base: toBigInt(address, family), bits: Number(bits ?? (family === 4 ? 32 : 128)) };
}

// AWS (IPv4, ECS task metadata, IPv6), Alibaba, Azure's WireServer.
const metadataAddresses = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16'].map(
  cidr,
);
const linkLocal = ['169.254.0.0/16', 'fe80::/10'].map(cidr);
const reserved = ['224.0.0.0/4', '240.0.0.0/4', 'ff00::/8'].map(cidr);
const privateRanges: Array<[Cidr, string]> = (
  [
    ['0.0.0.0/8', 'this-network'],
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'carrier-grade NAT'],
    ['127.0.0.0/8', 'loopback'],
    ['172.16.0.0/12', 'private'],
    ['192.168.0.0/16', 'private'],
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['fc00::/7', 'unique local'],
    ['fec0::/10', 'site-local'],
  ] as const
).map(([spec, kind]) => [cidr(spec), kind]);
// IPv6 forms that carry an IPv4 address in their last 32 bits: mapped, NAT64 (well-known and local-use), compatible.
const embedsIPv4 = ['::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '::/96'].map(cidr);

function toBigInt(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = toBigInt(v4[1]!, 4);
    text = text.slice(0, -v4[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function inRange(family: 4 | 6, value: bigint, range: Cidr): boolean {
  if (family !== range.family) return false;
  const width = family === 4 ? 32 : 128;
  const shift = BigInt(width - range.bits);
  return value >> shift === range.base >> shift;
}

/** Why an address is refused, or undefined when it is allowed. */
export function addressRefusal(address: string, allowPrivateNetworks: boolean): string | undefined {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 0) return `not an IP address: ${address}`;
  const value = toBigInt(address, family as 4 | 6);
  if (family === 6 && value > 1n && embedsIPv4.some((range) => inRange(6, value, range))) {
    const v4 = value & 0xffffffffn;
    const dotted = [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join('.');
    const inner = addressRefusal(dotted, allowPrivateNetworks);
    return inner && `${inner} (embedded in ${address})`;
  }
  const matches = (range: Cidr): boolean => inRange(family as 4 | 6, value, range);
  if (metadataAddresses.some(matches)) return `cloud metadata address ${address}`;
  if (linkLocal.some(matches)) return `link-local address ${address}`;
  if (reserved.some(matches)) return `reserved address ${address}`;
  const privateRange = privateRanges.find(([range]) => matches(range));
  if (privateRange && !allowPrivateNetworks)
    return `${privateRange[1]} address ${address} (private networks are not allowed)`;
  return undefined;
}

type HostVerdict = { addresses: string[] } | { refusal: string; unresolved?: boolean };

export function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
}

export function createNetworkGuard(options: NetworkGuardOptions): NetworkGuard {
  const { allowPrivateNetworks, cacheTtlMs = 30_000 } = options;
  const resolve =
    options.resolve ??
    (async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address));
  const cache = new Map<string, { expires: number; addresses: Promise<string[]> }>();

  function resolveCached(host: string): Promise<string[]> {
    const now = Date.now();
    const hit = cache.get(host);
    if (hit && hit.expires > now) return hit.addresses;
    if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
    const addresses = resolve(host);
    cache.set(host, { expires: now + cacheTtlMs, addresses });
    // A failed resolution is retried soon rather than remembered.
    addresses.catch(() => cache.set(host, { expires: Date.now() + Math.min(cacheTtlMs, 2_000), addresses }));
    return addresses;
  }

  async function verifyHost(rawHost: string): Promise<HostVerdict> {
    const host = normalizeHost(rawHost);
    if (!host) return { refusal: 'empty host' };
    if (isIP(host)) {
      const refusal = addressRefusal(host, allowPrivateNetworks);
      return refusal ? { refusal } : { addresses: [host] };
    }
    if (metadataHosts.has(host)) return { refusal: `cloud metadata host ${host}` };
    // Chromium answers these from its own table, never from DNS.
    if ((host === 'localhost' || host.endsWith('.localhost')) && !allowPrivateNetworks) {
      return { refusal: `loopback host ${host} (private networks are not allowed)` };
    }
    let addresses: string[];
    try {
      addresses = await resolveCached(host);
    } catch (err) {
      return {
        refusal: `cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        unresolved: true,
      };
    }
    if (addresses.length === 0) return { refusal: `cannot resolve ${host}: no addresses`, unresolved: true };
    // Every address counts: the connection may use any of them.
    for (const address of addresses) {
      const refusal = addressRefusal(address, allowPrivateNetworks);
      if (refusal) return { refusal: `${host} resolves to ${refusal}` };
    }
    return { addresses };
  }

  return {
    allowPrivateNetworks,
    async check(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { allowed: false, reason: `invalid URL: ${url}` };
      }
      if (localSchemes.has(parsed.protocol)) return { allowed: true };
      if (parsed.protocol === 'about:') {
        return aboutPages.has(parsed.href)
          ? { allowed: true }
          : { allowed: false, reason: `page ${parsed.href} is not allowed` };
      }
      if (!networkSchemes.has(parsed.protocol))
        return { allowed: false, reason: `scheme ${parsed.protocol} is not allowed` };
      if ((parsed.protocol === 'http:' || parsed.protocol === 'ws:') && options.isTunnelHost?.(parsed.hostname))
        return { allowed: true };
      const verdict = await verifyHost(parsed.hostname);
      if ('addresses' in verdict) return { allowed: true };
      return verdict.unresolved
        ? { allowed: false, reason: verdict.refusal, unresolved: true }
        : { allowed: false, reason: verdict.refusal };
    },
    lookup(hostname, options, callback) {
      verifyHost(hostname).then(
        (verdict) => {
          if (!('addresses' in verdict)) {
            const code = verdict.unresolved ? 'ENOTFOUND' : 'EBLOCKED';
            callback(Object.assign(new Error(verdict.refusal), { code, hostname }), []);
            return;
          }
          const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
          const found = verdict.addresses
            .map((address) => ({ address, family: isIP(address) }))
            .filter((a) => wanted === 0 || a.family === wanted);
          if (found.length === 0)
            callback(
              Object.assign(new Error(`no IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND', hostname }),
              [],
            );
          else if (options.all) callback(null, found);
          else callback(null, found[0]!.address, found[0]!.family);
        },
        (err: NodeJS.ErrnoException) => callback(err, []),
      );
    },
  };
}

/**
 * Aborts refused requests of `context` before they leave the browser, with ERR_BLOCKED_BY_CLIENT. Covers every
 * scheme Chromium routes (file: included) but only the first hop of a request; `startEgressProxy` covers the rest.
 */
export async function installNetworkGuard(
  context: BrowserContext,
  guard: NetworkGuard,
  onBlocked?: BlockedListener,
): Promise<void> {
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    const verdict = await guard.check(url);
    try {
      if (verdict.allowed) {
        await route.fallback();
      } else if (verdict.unresolved) {
        await route.abort('namenotresolved');
      } else {
        onBlocked?.(url, verdict.reason);
        await route.abort('blockedbyclient');
      }
    } catch {
      // The page or context closed while the check ran; nothing is left to route.
    }
  });
}
