// Remote tunnel rules shared by the API, the tunnel edge and the worker's egress proxy. Pure.

export type TunnelStatus = 'inactive' | 'degraded' | 'healthy';

/** Edge connections a healthy tunnel holds; the client opens this many. */
export const healthyConnections = 4;

/** A tunnel lives at most this long after creation. */
export const tunnelLifetimeMs = 12 * 3600_000;

/** How often an edge refreshes its connections' rows, and how old a row may be and still count as live. */
export const connectionHeartbeatMs = 5_000;
export const connectionStaleMs = 20_000;

/** Spec: 0 connections inactive, 1 to 3 degraded, 4 or more healthy. */
export function tunnelStatus(connections: number): TunnelStatus {
  if (connections <= 0) return 'inactive';
  return connections < healthyConnections ? 'degraded' : 'healthy';
}

export const subdomainPattern = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The first DNS label of a port's hostname: `<subdomain>-<label>`; the label itself never holds a '-'. */
export function hostLabel(subdomain: string, tunnelLabel: string): string {
  return `${subdomain}-${tunnelLabel}`;
}

/** `http://<subdomain>-<label>.<domain>`; `domain` may carry a port (`tunnel.localhost:3000`). */
export function tunnelUrl(subdomain: string, tunnelLabel: string, domain: string): string {
  return `http://${hostLabel(subdomain, tunnelLabel)}.${domain}`;
}

/** The domain without its port, as host names are compared. */
export function tunnelDomainHost(domain: string): string {
  return domain.replace(/:\d+$/, '').toLowerCase();
}

/**
 * Which tunnel and port a request host names, or undefined when it is not a tunnel host of `domain`.
 * `host` may carry a port and a trailing dot.
 */
export function parseTunnelHost(host: string, domain: string): { subdomain: string; label: string } | undefined {
  const name = host.replace(/:\d+$/, '').replace(/\.+$/, '').toLowerCase();
  const suffix = `.${tunnelDomainHost(domain)}`;
  if (!name.endsWith(suffix)) return undefined;
  const first = name.slice(0, -suffix.length);
  const dash = first.lastIndexOf('-');
  if (first.includes('.') || dash <= 0 || dash === first.length - 1) return undefined;
  const subdomain = first.slice(0, dash);
  return subdomainPattern.test(subdomain) ? { subdomain, label: first.slice(dash + 1) } : undefined;
}

/** Where tunnel hostnames live when the deployment does not say (`*.localhost` resolves to loopback in browsers). */
export const defaultTunnelDomain = 'tunnel.localhost';
