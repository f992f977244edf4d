// Which peers may say who the client is. A forwarding header is a claim any client can write, so it counts only when
// the peer that sent it is a proxy the operator trusts (PROCTOR_TRUSTED_PROXIES); then the header is read from the
// right, hop by hop, past every trusted proxy, and the first address no trusted proxy vouches for beyond is the
// client. Entries further left were written by that client and are ignored: `X-Forwarded-For: 1.2.3.4` sent through
// the proxy does not make the caller 1.2.3.4.
import { BlockList, isIP } from 'node:net';

export interface TrustedProxies {
  /** Whether `address` is a proxy whose forwarding header is believed. */
  trusts(address: string): boolean;
}

export const trustNone: TrustedProxies = { trusts: () => false };

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
export const plainAddress = (address: string): string => address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

const family = (address: string): 'ipv4' | 'ipv6' | undefined =>
  (({ 4: 'ipv4', 6: 'ipv6' }) as const)[isIP(address) as 4 | 6];

/**
 * `loopback`, addresses and CIDR ranges, comma-separated (`loopback, 10.0.0.0/8, fd00::/8`); empty or absent:
 * nobody is trusted. Throws a message naming the first entry that is none of these.
 */
export function parseTrustedProxies(text: string | undefined): TrustedProxies {
  const entries = (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return trustNone;
  const list = new BlockList();
  for (const entry of entries) {
    if (entry.toLowerCase() === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address = '', bits, extra] = entry.split('/');
    const kind = family(address);
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = kind === 'ipv4' ? 32 : 128;
    if (!kind || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && prefix! <= max))) {
      throw new Error(`"${entry}" is not an address, a CIDR range or "loopback"`);
    }
    if (prefix === undefined) list.addAddress(address, kind);
    else list.addSubnet(address, prefix, kind);
  }
  return {
    trusts(address) {
      const plain = plainAddress(address);
      const kind = family(plain);
      return kind !== undefined && list.check(plain, kind);
    },
  };
}

/** The client's address: the socket's peer, or what trusted proxies in front of it forwarded (`X-Forwarded-For`). */
export function clientAddressOf(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let client = plainAddress(peer);
  if (!forwardedFor || !trusted.trusts(client)) return client;
  const hops = forwardedFor.split(',').map(plainAddress).filter(Boolean);
  for (let i = hops.length - 1; i >= 0 && trusted.trusts(client); i--) {
    const hop = hops[i]!;
    // A hop that is no address is no client either: the last proxy that wrote the header stands for it.
    if (!family(hop)) break;
    client = hop;
  }
  return client;
}
