import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defaultTunnelDomain } from './domain/tunnels.js';
import { parseTrustedProxies } from './domain/trusted-proxies.js';

export type Mode = 'dev' | 'api' | 'worker' | 'migrate' | 'admin';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** JSON request bodies above this are refused with 413 before they are parsed (blob uploads have their own cap). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Mobile builds: the largest upload accepted (QA.tech: 4 GB) and how long its upload URL lives. */
export const DEFAULT_BUILD_MAX_BYTES = 4 * 1024 ** 3;
export const DEFAULT_BUILD_UPLOAD_TTL_SECONDS = 600;
export const DEFAULT_MAX_DIFF_BYTES = 16 * 1024 * 1024;
export const DEFAULT_INBOX_DOMAIN = 'inbox.proctor.localhost';

const port = z.coerce.number().int().min(0).max(65535);
const url = z.string().url();
const usdPerMTok = z.number().min(0);
const llmPrices = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be JSON, e.g. {"gpt-4.1-mini": {"prompt": 0.4, "completion": 1.6, "cached": 0.1}}',
      });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string(),
      z.object({ prompt: usdPerMTok, completion: usdPerMTok, cached: usdPerMTok.optional() }).strict(),
    ),
  );

const schema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PROCTOR_PUBLIC_URL: url.optional(),
  PROCTOR_APP_URL: url.optional(),
  PROCTOR_DATA_DIR: z.string().min(1).default('.proctor'),
  DATABASE_URL: url.optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('proctor'),
  /**
   * A workflow bundle built beforehand from this same code (`bundleWorkflowCode`'s output in a file): the worker
   * loads it instead of bundling at start, which takes seconds of CPU. The test suite's worker processes use it.
   */
  PROCTOR_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  /** How this worker appears in Temporal (pollers, ActivityTaskStarted.identity); default `<pid>@<hostname>`. */
  TEMPORAL_WORKER_IDENTITY: z.string().min(1).optional(),
  // `proctor worker` on SIGTERM: stop polling, let running activities finish this long, then cancel them (Temporal
  // retries them on another worker). Kubernetes' grace period must be longer (the Helm chart adds 30 s).
  PROCTOR_WORKER_DRAIN_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: url.optional(),
  S3_ENDPOINT: url.optional(),
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).default('proctor'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  PROCTOR_BLOB_DIR: z.string().min(1).optional(),
  PROCTOR_BLOB_SECRET: z.string().min(16).optional(),
  PROCTOR_URL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(900),
  PROCTOR_BUILD_MAX_BYTES: z.coerce.number().int().min(1).default(DEFAULT_BUILD_MAX_BYTES),
  PROCTOR_BUILD_UPLOAD_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(DEFAULT_BUILD_UPLOAD_TTL_SECONDS),
  PROCTOR_CHROMIUM_PATH: z.string().min(1).optional(),
  PROCTOR_ALLOW_PRIVATE_NETWORKS: bool.optional(),
  PROCTOR_BROWSER_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(4),
  PROCTOR_AGENT_MAX_STEPS: z.coerce.number().int().min(1).max(200).default(30),
  PROCTOR_STEP_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
  PROCTOR_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * Prometheus /metrics on a listener of its own (0: a free port, logged). Unset: the API and `proctor dev` serve it
   * on the API's port, the worker on 9464. Set on an API, the API's port no longer answers /metrics.
   */
  PROCTOR_METRICS_PORT: port.optional(),
  PROCTOR_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(DEFAULT_MAX_BODY_BYTES),
  PROCTOR_MAX_DIFF_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(DEFAULT_MAX_DIFF_BYTES),
  PROCTOR_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  PROCTOR_EMAIL_FROM: z.string().min(3).default('Proctor <proctor@localhost>'),
  // Proctor's own inbox: the API process receives mail for this domain over SMTP (`{{INBOX}}` in steps).
  PROCTOR_INBOX_SMTP_PORT: port.default(2525),
  PROCTOR_INBOX_DOMAIN: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i, 'must be a domain name')
    .default(DEFAULT_INBOX_DOMAIN),
  PROCTOR_INBOX_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: url.optional(),
  PROCTOR_LLM_MODEL: z.string().min(1).optional(),
  // {"<model>": {"prompt": 0.4, "completion": 1.6, "cached": 0.1}}: US dollars per million tokens (usage costs).
  PROCTOR_LLM_PRICES: llmPrices.optional(),
  // How the agent asks for tool calls: probed at startup (auto), or set for an endpoint whose probe cannot be trusted.
  PROCTOR_LLM_TOOL_MODE: z.enum(['auto', 'native', 'native-plain', 'text']).default('auto'),
  // A model per role on the same endpoint (a small fast one for heals, a strong one for reviews); unset: PROCTOR_LLM_MODEL.
  PROCTOR_LLM_MODEL_AGENT: z.string().min(1).optional(),
  PROCTOR_LLM_MODEL_HEAL: z.string().min(1).optional(),
  PROCTOR_LLM_MODEL_REVIEW: z.string().min(1).optional(),
  PROCTOR_LLM_MODEL_CHAT: z.string().min(1).optional(),
  // A page's tokens in each model call (burn-in steps, heals): its main content whole first (issue 32).
  PROCTOR_LLM_PAGE_TOKENS: z.coerce.number().int().min(500).max(100_000).optional(),
  PROCTOR_TUNNEL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d+)?$/i, 'must be a domain, optionally with :port')
    .optional(),
  PROCTOR_INTERNAL_SECRET: z.string().min(16).optional(),
  PROCTOR_EDGE_URL: url.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // The key wrapping the data keys of secrets at rest (src/db/secrets.ts); its format is checked below.
  PROCTOR_MASTER_KEY: z.string().min(1).optional(),
  // Proxies whose X-Forwarded-For names the client (`loopback`, addresses, CIDRs); default: none is believed.
  PROCTOR_TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((text, ctx) => {
      try {
        parseTrustedProxies(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
});

export type Env = z.infer<typeof schema>;

/** Every variable Proctor reads itself (the Helm chart's test checks it sets no other; OTEL_* go to OpenTelemetry). */
export const settingNames: readonly string[] = Object.keys(schema.shape);

export interface Config extends Env {
  mode: Mode;
  publicUrl: string;
  appUrl: string;
  s3?: { endpoint: string; accessKey: string; secretKey: string; bucket: string; region: string };
  llm?: {
    apiKey: string;
    baseURL?: string;
    model: string;
    prices?: Record<string, { prompt: number; completion: number; cached?: number }>;
    toolMode?: 'auto' | 'native' | 'native-plain' | 'text';
    models?: Partial<Record<'agent' | 'heal' | 'review' | 'chat', string>>;
    pageTokens?: number;
  };
  allowPrivateNetworks: boolean;
  /** Remote tunnels: hostnames live under `domain`; `edgeUrl` is where workers reach this API process. */
  tunnels: { domain: string; edgeUrl: string; internalSecret?: string };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

// What each production process cannot start without (dev starts its own parts).
const requiredByMode: Partial<Record<Mode, (keyof Env)[]>> = {
  api: ['DATABASE_URL', 'TEMPORAL_ADDRESS'],
  worker: ['DATABASE_URL', 'TEMPORAL_ADDRESS'],
  migrate: ['DATABASE_URL'],
};

/** Parses the environment once; every problem is reported by variable name. */
export function loadConfig(mode: Mode, env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  }
  for (const key of requiredByMode[mode] ?? []) {
    if (!cleaned[key]) problems.push(`${key}: required by \`proctor ${mode}\``);
  }
  const e = parsed.data;
  if (e?.S3_ENDPOINT && (!e.S3_ACCESS_KEY || !e.S3_SECRET_KEY)) {
    problems.push('S3_ACCESS_KEY / S3_SECRET_KEY: required when S3_ENDPOINT is set');
  }
  if (e && !e.S3_ENDPOINT && mode !== 'dev' && mode !== 'migrate' && mode !== 'admin' && !e.PROCTOR_BLOB_SECRET) {
    problems.push(
      'PROCTOR_BLOB_SECRET: required by the filesystem blob store outside `proctor dev` (or set S3_ENDPOINT)',
    );
  }
  problems.push(...masterKeyProblems(mode, e?.PROCTOR_MASTER_KEY));
  if (problems.length > 0 || !e) {
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const publicUrl = (e.PROCTOR_PUBLIC_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`).replace(
    /\/$/,
    '',
  );
  return {
    ...e,
    mode,
    publicUrl,
    appUrl: (e.PROCTOR_APP_URL ?? publicUrl).replace(/\/$/, ''),
    s3: e.S3_ENDPOINT
      ? {
          endpoint: e.S3_ENDPOINT,
          accessKey: e.S3_ACCESS_KEY!,
          secretKey: e.S3_SECRET_KEY!,
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
        }
      : undefined,
    llm: e.OPENAI_API_KEY
      ? {
          apiKey: e.OPENAI_API_KEY,
          baseURL: e.OPENAI_BASE_URL,
          model: e.PROCTOR_LLM_MODEL ?? 'gpt-4.1-mini',
          prices: e.PROCTOR_LLM_PRICES,
          toolMode: e.PROCTOR_LLM_TOOL_MODE,
          models: roleModels(e),
          pageTokens: e.PROCTOR_LLM_PAGE_TOKENS,
        }
      : undefined,
    // Private ranges are reachable from a laptop's dev stack by default, never by default in production.
    allowPrivateNetworks: e.PROCTOR_ALLOW_PRIVATE_NETWORKS ?? mode === 'dev',
    tunnels: {
      domain: (e.PROCTOR_TUNNEL_DOMAIN ?? `${defaultTunnelDomain}:${e.PORT}`).toLowerCase(),
      edgeUrl: (e.PROCTOR_EDGE_URL ?? publicUrl).replace(/\/$/, ''),
      // The dev process is its own worker and edge, so a secret of its own is enough.
      internalSecret: e.PROCTOR_INTERNAL_SECRET ?? (mode === 'dev' ? randomBytes(24).toString('hex') : undefined),
    },
  };
}

// Only `proctor dev` may fall back to a key generated into its data directory: a production process that made its
// own key would seal secrets no other process can read (and lose them with its container).
const masterKeyModes: Mode[] = ['api', 'worker', 'migrate'];
const masterKeyHelp = '32 bytes as base64 or 64 hex digits, e.g. `openssl rand -base64 32`, the same on every process';

function masterKeyProblems(mode: Mode, key: string | undefined): string[] {
  if (key === undefined) {
    return masterKeyModes.includes(mode)
      ? [
          `PROCTOR_MASTER_KEY: required by \`proctor ${mode}\` to read and write secrets at rest (${masterKeyHelp}); only \`proctor dev\` generates one`,
        ]
      : [];
  }
  const t = key.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(t) ? 32 : /^[A-Za-z0-9+/]+={0,2}$/.test(t) ? Buffer.from(t, 'base64').length : 0;
  return bytes === 32 ? [] : [`PROCTOR_MASTER_KEY: must be ${masterKeyHelp}`];
}

function roleModels(e: {
  PROCTOR_LLM_MODEL_AGENT?: string;
  PROCTOR_LLM_MODEL_HEAL?: string;
  PROCTOR_LLM_MODEL_REVIEW?: string;
  PROCTOR_LLM_MODEL_CHAT?: string;
}): Partial<Record<'agent' | 'heal' | 'review' | 'chat', string>> | undefined {
  const models = {
    agent: e.PROCTOR_LLM_MODEL_AGENT,
    heal: e.PROCTOR_LLM_MODEL_HEAL,
    review: e.PROCTOR_LLM_MODEL_REVIEW,
    chat: e.PROCTOR_LLM_MODEL_CHAT,
  };
  const set = Object.fromEntries(Object.entries(models).filter(([, m]) => m !== undefined));
  return Object.keys(set).length ? set : undefined;
}
