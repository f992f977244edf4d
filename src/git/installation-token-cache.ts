// @octokit/auth-app caches an installation token for 59 minutes from when it was minted, whatever `expires_at`
// GitHub answered (GitHub Enterprise or a token revoked early can give less), and then sends an expired token:
// a 401 in the middle of a review. This cache, handed to auth-app in its own format
// (`token|createdAt|expiresAt|…`), keeps an entry only while the token has time left: it is dropped a minute
// before `expires_at`, or halfway through its life for a token shorter than two minutes.

const maxEntries = 15_000;
const refreshMarginMs = 60_000;

export class InstallationTokenCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly clock: () => number = Date.now) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    const [, createdAt, expiresAt] = value.split('|');
    const expires = Date.parse(expiresAt ?? '');
    const lifetime = expires - Date.parse(createdAt ?? '');
    const margin = Math.min(refreshMarginMs, Number.isFinite(lifetime) ? lifetime / 2 : refreshMarginMs);
    if (!Number.isFinite(expires) || this.clock() >= expires - margin) {
      this.entries.delete(key);
      return undefined;
    }
    return value;
  }

  set(key: string, value: string): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
