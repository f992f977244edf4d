// One Chromium per worker process, launched on first use and again after a crash; one browser context per
// job, handed out through the limiter, guarded by the network guard, and always closed when the job ends.
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { BrowserState } from '../../domain/steps.js';
import { loadPrograms } from '../../programs.js';
import { abortReason, createLimiter, type LimiterStats } from './limiter.js';
import { installNetworkGuard, type BlockedListener, type NetworkGuard } from './network-guard.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import { contextStorageState, seedSessionStorage } from './state.js';
import type { ContextAccess } from './access.js';
import type { TunnelRouter } from '../../tunnels/agent-router.js';
import { trackBrowserPool } from '../../metrics.js';

/** The browser went away under a job: critical, the job's work is lost and the pool relaunches on the next job. */
export class BrowserCrashedError extends Error {
  override readonly name = 'BrowserCrashedError';
  constructor(cause?: unknown) {
    super('the browser crashed or disconnected', { cause });
  }
}

/** The job ran past its `timeoutMs`; its context was closed and its slot freed. Retryable. */
export class BrowserJobTimeoutError extends Error {
  override readonly name = 'BrowserJobTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`browser job timed out after ${timeoutMs} ms`);
  }
}

export class BrowserPoolClosedError extends Error {
  override readonly name = 'BrowserPoolClosedError';
  constructor() {
    super('the browser pool is closed');
  }
}

/** Launch flags known to work in containers: headless, no sandbox (no user namespaces), no GPU, no background traffic. */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface BrowserPoolOptions {
  /** Defaults to `loadPrograms().chromium` (PROCTOR_CHROMIUM_PATH, .proctor/tools.json, PATH). */
  executablePath?: string;
  concurrency: number;
  maxQueue?: number;
  queueTimeoutMs?: number;
  launchTimeoutMs?: number;
  networkGuard: NetworkGuard;
  headless?: boolean;
  /** Extra Chromium switches, after `chromiumFlags`. */
  args?: string[];
  /** Sends requests for remote-tunnel hostnames to the tunnel edge (the guard must allow those hosts). */
  tunnels?: TunnelRouter;
}

export interface ContextOptions {
  viewport?: { width: number; height: number } | null;
  deviceScaleFactor?: number;
  isMobile?: boolean;
  hasTouch?: boolean;
  userAgent?: string;
  locale?: string;
  timezoneId?: string;
  /** Restored before `fn` runs: cookies, localStorage, sessionStorage. */
  state?: BrowserState;
  signal?: AbortSignal;
  /** For the whole job once it has a slot: context set-up and `fn`. */
  timeoutMs?: number;
  /** Hears about every request the network guard refused. */
  onBlocked?: BlockedListener;
  /** The project the job works for: it may reach that project's private remote tunnels, and no other's. */
  projectId?: string;
  /** The environment's basic auth, extra headers and preset cookies (src/browser/context/access.ts). */
  access?: ContextAccess;
}

export interface BrowserPoolStats extends LimiterStats {
  /** Open browser contexts in the current browser. */
  contexts: number;
  connected: boolean;
  /** Browsers launched so far: more than one means a crash was recovered from. */
  launches: number;
}

export interface BrowserPool {
  withContext<T>(options: ContextOptions, fn: (job: { context: BrowserContext; page: Page }) => Promise<T>): Promise<T>;
  stats(): BrowserPoolStats;
  /** Closes the browser; running jobs fail with `BrowserPoolClosedError`, later ones are refused. */
  close(): Promise<void>;
}

const contextCloseTimeoutMs = 10_000;

/** A promise that rejects once, with the first reason given; everything a job awaits races against it. */
function interruption() {
  let fire!: (reason: Error) => void;
  let reason: Error | undefined;
  const promise = new Promise<never>((_, reject) => {
    fire = (err) => {
      if (reason) return;
      reason = err;
      reject(err);
    };
  });
  promise.catch(() => undefined);
  return {
    fire,
    reason: () => reason,
    race: <T>(work: Promise<T>): Promise<T> => Promise.race([work, promise]),
  };
}

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  const executablePath = options.executablePath ?? loadPrograms().chromium;
  if (!executablePath) throw new Error('Chromium not found: set PROCTOR_CHROMIUM_PATH or run npm run setup');
  const { networkGuard, tunnels, headless = true, launchTimeoutMs = 30_000 } = options;
  const limiter = createLimiter({
    concurrency: options.concurrency,
    maxQueue: options.maxQueue,
    queueTimeoutMs: options.queueTimeoutMs,
  });
  const args = [...chromiumFlags.filter((flag) => headless || flag !== '--headless'), ...(options.args ?? [])];

  let current: Browser | undefined;
  let launching: Promise<Browser> | undefined;
  let launches = 0;
  let closed = false;

  function browser(): Promise<Browser> {
    if (closed) return Promise.reject(new BrowserPoolClosedError());
    if (current?.isConnected()) return Promise.resolve(current);
    launching ??= chromium
      .launch({
        executablePath,
        headless,
        args,
        chromiumSandbox: false,
        timeout: launchTimeoutMs,
        // The worker owns shutdown and calls close(); Playwright still kills the browser if the process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
      .then(
        (launched) => {
          launches += 1;
          current = launched;
          launched.once('disconnected', () => {
            if (current === launched) current = undefined;
          });
          return launched;
        },
        (err: unknown) => {
          throw new Error(
            `Chromium failed to launch from ${executablePath}: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
        },
      )
      .finally(() => {
        launching = undefined;
      });
    return launching;
  }

  async function runJob<T>(
    options: ContextOptions,
    fn: (job: { context: BrowserContext; page: Page }) => Promise<T>,
  ): Promise<T> {
    const { signal, timeoutMs, state } = options;
    const interrupt = interruption();
    const onAbort = () => interrupt.fire(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => interrupt.fire(new BrowserJobTimeoutError(timeoutMs)), timeoutMs);
    const onDisconnected = () => interrupt.fire(closed ? new BrowserPoolClosedError() : new BrowserCrashedError());

    let launched: Browser | undefined;
    let proxy: EgressProxy | undefined;
    let creating: Promise<BrowserContext> | undefined;
    try {
      launched = await interrupt.race(browser());
      launched.on('disconnected', onDisconnected);
      if (!launched.isConnected()) onDisconnected();
      proxy = await startEgressProxy(networkGuard, options.onBlocked, tunnels, options.projectId);
      // `<-loopback>` drops Chromium's implicit proxy bypass, which would send loopback and link-local
      // (169.254.0.0/16: the metadata address) straight out, past the proxy.
      creating = launched.newContext({
        ...contextOptions(options),
        proxy: { server: proxy.server, bypass: '<-loopback>' },
      });
      const context = await interrupt.race(creating);
      await interrupt.race(installNetworkGuard(context, networkGuard, options.onBlocked));
      if (options.access?.cookies) await interrupt.race(context.addCookies(options.access.cookies));
      if (state) await interrupt.race(seedSessionStorage(context, state));
      const page = await interrupt.race(context.newPage());
      return await interrupt.race(fn({ context, page }));
    } catch (err) {
      const reason = interrupt.reason();
      if (reason) throw reason;
      if (launched && !launched.isConnected())
        throw closed ? new BrowserPoolClosedError() : new BrowserCrashedError(err);
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      launched?.off('disconnected', onDisconnected);
      // A context still being created when the job was interrupted is closed once it exists.
      if (creating) await closeContext(creating);
      await proxy?.close();
    }
  }

  const untrack = trackBrowserPool(() => ({ ...limiter.stats(), concurrency: options.concurrency }));
  return {
    withContext(options, fn) {
      return limiter.run(() => runJob(options, fn), options.signal);
    },
    stats() {
      return {
        ...limiter.stats(),
        contexts: current?.contexts().length ?? 0,
        connected: current?.isConnected() ?? false,
        launches,
      };
    },
    async close() {
      closed = true;
      untrack();
      const open = current ?? (await launching?.catch(() => undefined));
      await open?.close();
    },
  };
}

function contextOptions(options: ContextOptions): BrowserContextOptions {
  const { viewport, deviceScaleFactor, isMobile, hasTouch, userAgent, locale, timezoneId, state } = options;
  return {
    viewport,
    deviceScaleFactor,
    isMobile,
    hasTouch,
    userAgent,
    locale,
    timezoneId,
    storageState: state ? contextStorageState(state) : undefined,
    httpCredentials: options.access?.httpCredentials,
    extraHTTPHeaders: options.access?.extraHTTPHeaders,
  };
}

async function closeContext(creating: Promise<BrowserContext>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closing = creating.then((context) => context.close()).catch(() => undefined);
  // A browser that hangs on close must not keep the job's slot forever; `stats().contexts` shows the leak.
  await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, contextCloseTimeoutMs)))]);
  clearTimeout(timer);
}
