// gitbeaker's own requester retries 429 and 502 ten times with a doubling delay (0.25 s … 128 s: over four
// minutes) inside one call, holding the activity that made it. This one makes each request once, so a rate limit
// or an outage surfaces at once as UnavailableError (src/git/errors.ts) and the activity's Temporal retry
// policy decides when to try again, visibly in the workflow's history. Responses are parsed as gitbeaker does.
import {
  createRequesterFn,
  GitbeakerRequestError,
  GitbeakerTimeoutError,
  type RequestOptions,
} from '@gitbeaker/requester-utils';

async function parseBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (contentType === 'application/json') return (await response.json()) || {};
  if (contentType.startsWith('text/')) return (await response.text()) || '';
  return response.blob();
}

async function failed(request: Request, response: Response): Promise<never> {
  const content = await response.text();
  let description = content;
  if (response.headers.get('content-type')?.includes('application/json')) {
    try {
      const output = JSON.parse(content) as { error?: unknown; message?: unknown } | null;
      const property = output?.error ?? output?.message ?? '';
      description = typeof property === 'string' ? property : JSON.stringify(property);
    } catch {
      // Not JSON after all: the raw text says what it says.
    }
  }
  throw new GitbeakerRequestError(description, { cause: { description, request, response } });
}

type HandlerOptions = RequestOptions & {
  rateLimiters?: unknown;
  agent?: unknown;
  asStream?: boolean;
  prefixUrl?: string;
  searchParams?: string;
  method?: string;
};

async function requestOnce(endpoint: string, options?: HandlerOptions) {
  // The rate limiters gitbeaker adds are not used: Proctor sets none.
  const { rateLimiters: _limiters, agent: _agent, asStream, prefixUrl, searchParams, method, ...init } = options ?? {};
  const base = prefixUrl ? (prefixUrl.endsWith('/') ? prefixUrl : `${prefixUrl}/`) : undefined;
  const url = new URL(endpoint, base);
  url.search = searchParams ?? '';
  const request = new Request(url, { ...(init as RequestInit), method });
  const response = await fetch(request).catch((err: unknown) => {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
      throw new GitbeakerTimeoutError('Query timeout was reached');
    throw err;
  });
  if (!response.ok) return failed(request, response);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { body: asStream ? response.body : await parseBody(response), headers, status: response.status };
}

export const singleAttemptRequester = createRequesterFn((_, options) => Promise.resolve(options), requestOnce as never);
