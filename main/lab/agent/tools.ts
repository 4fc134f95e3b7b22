// The unified tool layer of WebSailor-V2's real environment: whatever service sits behind a tool, the agent
// sees one stable interface. In front of each source: a QPS limit (token bucket), an LRU result cache keyed
// by canonical arguments, a timeout per attempt, retries with exponential backoff, and a fallback source;
// counters per tool say what happened. Adapters: an OpenAI-compatible chat client and a generic HTTP
// search / page-fetch client with URL templates and JSON field mapping.
import type { Policy, GenerateOptions } from './runtime';
import type { ChatFn } from './thoughts';
import { renderAction, renderObservation } from './react';
import type { SearchResult } from './web';

// ---------- errors ----------

export type ToolErrorKind = 'timeout' | 'http' | 'network' | 'malformed' | 'rejected';

export class ToolError extends Error {
  constructor(
    readonly kind: ToolErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

// ---------- time ----------

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/**
 * Token bucket by reservation: each caller takes a token now (the balance may go negative) and waits until
 * its token would have been refilled. Callers are served in order, and bursts up to `burst` pass at once.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSec: number,
    private readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Milliseconds the caller must wait for its token (0 when one is available). */
  reserve(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSec) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.ratePerSec;
  }

  async acquire(): Promise<number> {
    const wait = this.reserve();
    if (wait > 0) await this.clock.sleep(wait);
    return wait;
  }
}

/** Least-recently-used cache on Map's insertion order; optional time-to-live. */
export class LruCache<V> {
  private readonly map = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs = 0,
    private readonly clock: Clock = realClock,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (this.ttlMs > 0 && this.clock.now() - hit.at > this.ttlMs) {
      this.map.delete(key);
      return undefined;
    }
    this.map.delete(key); // move to the most-recent end
    this.map.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V): void {
    if (this.max <= 0) return;
    this.map.delete(key);
    this.map.set(key, { value, at: this.clock.now() });
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/** JSON with object keys sorted at every level: equal arguments give equal cache keys. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------- the managed tool ----------

export interface ToolSource<A, R> {
  name: string;
  call(args: A, signal: AbortSignal): Promise<R>;
}

export interface ToolPolicy {
  timeoutMs: number; // per attempt
  retries: number; // extra attempts per source after the first
  backoffMs: number; // wait before the first retry
  backoffFactor: number; // ... multiplied by this for each further retry
  maxBackoffMs: number;
  qps: number; // 0: unlimited
  burst: number;
  cacheSize: number; // 0: no cache
  cacheTtlMs: number; // 0: no expiry
}

export const TOOL_POLICY_DEFAULTS: ToolPolicy = {
  timeoutMs: 10_000,
  retries: 2,
  backoffMs: 250,
  backoffFactor: 2,
  maxBackoffMs: 5_000,
  qps: 0,
  burst: 1,
  cacheSize: 1_000,
  cacheTtlMs: 0,
};

export interface ToolCounters {
  calls: number; // calls into the layer
  cache_hits: number; // answered from the cache
  attempts: number; // requests sent to a source (primary or fallback)
  retries: number; // attempts after a failed attempt
  timeouts: number; // attempts that hit the timeout
  errors: number; // attempts that failed otherwise (HTTP 5xx/4xx, malformed JSON, network)
  fallbacks: number; // calls handed to the fallback source after the primary gave up
  failures: number; // calls that failed in the end
}

export function emptyCounters(): ToolCounters {
  return { calls: 0, cache_hits: 0, attempts: 0, retries: 0, timeouts: 0, errors: 0, fallbacks: 0, failures: 0 };
}

export function backoffDelay(retry: number, p: Pick<ToolPolicy, 'backoffMs' | 'backoffFactor' | 'maxBackoffMs'>): number {
  return Math.min(p.maxBackoffMs, p.backoffMs * p.backoffFactor ** (retry - 1));
}

export interface ManagedToolOptions<A> {
  policy?: Partial<ToolPolicy>;
  fallback?: ToolSource<A, unknown>;
  /** Whether a call's result may be cached (e.g. chat only at temperature 0). Default: always. */
  cacheable?: (args: A) => boolean;
  clock?: Clock;
}

export class ManagedTool<A, R> {
  readonly policy: ToolPolicy;
  private readonly stats = emptyCounters();
  private readonly cache: LruCache<R>;
  private readonly bucket: TokenBucket | null;
  private readonly fallbackBucket: TokenBucket | null;
  private readonly clock: Clock;
  private readonly fallback?: ToolSource<A, R>;
  private readonly cacheable: (args: A) => boolean;

  constructor(
    readonly name: string,
    private readonly primary: ToolSource<A, R>,
    opts: ManagedToolOptions<A> = {},
  ) {
    this.policy = { ...TOOL_POLICY_DEFAULTS, ...opts.policy };
    this.clock = opts.clock ?? realClock;
    this.cache = new LruCache<R>(this.policy.cacheSize, this.policy.cacheTtlMs, this.clock);
    const bucket = (): TokenBucket | null => (this.policy.qps > 0 ? new TokenBucket(this.policy.qps, this.policy.burst, this.clock) : null);
    this.bucket = bucket();
    this.fallbackBucket = bucket(); // the fallback is another service with its own quota
    this.fallback = opts.fallback as ToolSource<A, R> | undefined;
    this.cacheable = opts.cacheable ?? (() => true);
  }

  counters(): ToolCounters {
    return { ...this.stats };
  }

  async call(args: A): Promise<R> {
    this.stats.calls++;
    const useCache = this.policy.cacheSize > 0 && this.cacheable(args);
    const key = useCache ? canonicalJson(args) : '';
    if (useCache) {
      const hit = this.cache.get(key);
      if (hit !== undefined) {
        this.stats.cache_hits++;
        return hit;
      }
    }
    let result: R;
    try {
      result = await this.withRetries(this.primary, this.bucket, args);
    } catch (err) {
      if (!this.fallback) {
        this.stats.failures++;
        throw err;
      }
      this.stats.fallbacks++;
      try {
        result = await this.withRetries(this.fallback, this.fallbackBucket, args);
      } catch (err2) {
        this.stats.failures++;
        throw err2;
      }
    }
    if (useCache) this.cache.set(key, result);
    return result;
  }

  private async withRetries(source: ToolSource<A, R>, bucket: TokenBucket | null, args: A): Promise<R> {
    let last: unknown;
    for (let attempt = 0; attempt <= this.policy.retries; attempt++) {
      if (attempt > 0) {
        this.stats.retries++;
        await this.clock.sleep(backoffDelay(attempt, this.policy));
      }
      if (bucket) await bucket.acquire();
      this.stats.attempts++;
      try {
        return await this.once(source, args);
      } catch (err) {
        last = err;
        if (err instanceof ToolError && err.kind === 'timeout') this.stats.timeouts++;
        else this.stats.errors++;
        const retryable = err instanceof ToolError ? err.retryable : true; // unknown errors: assume transient
        if (!retryable) break;
      }
    }
    throw last;
  }

  private once(source: ToolSource<A, R>, args: A): Promise<R> {
    const ctl = new AbortController();
    const timeoutMs = this.policy.timeoutMs;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        const err = new ToolError('timeout', `${source.name}: no answer within ${timeoutMs} ms`, true);
        ctl.abort(err);
        reject(err);
      }, timeoutMs);
      source.call(args, ctl.signal).then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e); // after a timeout this is a no-op: the promise is already settled
        },
      );
    });
  }
}

// ---------- HTTP helpers ----------

/** Reads a dotted path ('data.items.0.title') out of parsed JSON; '' is the value itself. */
export function getPath(value: unknown, path: string): unknown {
  if (path === '') return value;
  let cur: unknown = value;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Fills `{name}` placeholders with URL-encoded values. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(values, k) ? encodeURIComponent(values[k]!) : m));
}

async function httpText(source: string, url: string, init: RequestInit, signal: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new ToolError('timeout', `${source}: aborted`, true);
    throw new ToolError('network', `${source}: ${(err as Error).message}`, true);
  }
  const body = await res.text();
  if (!res.ok) {
    const retryable = res.status >= 500 || res.status === 429;
    throw new ToolError(retryable ? 'http' : 'rejected', `${source}: HTTP ${res.status} ${body.slice(0, 200)}`, retryable, res.status);
  }
  return body;
}

function parseJson(source: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Proxies in front of real services sometimes answer HTML or truncated JSON: worth a retry.
    throw new ToolError('malformed', `${source}: response is not valid JSON: ${text.slice(0, 120)}`, true);
  }
}

// ---------- OpenAI-compatible chat ----------

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  /** Ask for each generated token's log-probability (OpenAI's `logprobs`). */
  logprobs?: boolean;
}

export interface ChatConfig {
  baseUrl: string; // e.g. http://127.0.0.1:8000/v1
  model: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

/** A chat completion as the server answered it: the text, its token counts and, when asked for, per-token log-probabilities. */
export interface ChatReply {
  content: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** [token, log-probability] per generated token (OpenAI's choices[0].logprobs.content). */
  logprobs?: Array<[string, number]>;
}

export function chatReplyOf(name: string, body: unknown): ChatReply {
  const content = getPath(body, 'choices.0.message.content');
  if (typeof content !== 'string') throw new ToolError('malformed', `${name}: no choices[0].message.content in the response`, true);
  const usage = getPath(body, 'usage') as ChatReply['usage'] | undefined;
  const lp = getPath(body, 'choices.0.logprobs.content');
  const logprobs = Array.isArray(lp)
    ? lp.filter((t): t is { token: string; logprob: number } => typeof t?.token === 'string' && typeof t?.logprob === 'number').map((t): [string, number] => [t.token, t.logprob])
    : undefined;
  return { content, ...(usage && typeof usage === 'object' ? { usage } : {}), ...(logprobs?.length ? { logprobs } : {}) };
}

/** `POST {baseUrl}/chat/completions`; the result is choices[0].message.content with the usage and log-probabilities. */
export function chatReplySource(cfg: ChatConfig): ToolSource<ChatRequest, ChatReply> {
  const name = `chat:${cfg.model}`;
  const url = `${cfg.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    name,
    async call(req, signal) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...cfg.headers };
      if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
      const text = await httpText(name, url, { method: 'POST', headers, body: JSON.stringify({ model: cfg.model, ...req }) }, signal);
      return chatReplyOf(name, parseJson(name, text));
    },
  };
}

/** `POST {baseUrl}/chat/completions`; the result is choices[0].message.content. */
export function chatSource(cfg: ChatConfig): ToolSource<ChatRequest, string> {
  const reply = chatReplySource(cfg);
  return { name: reply.name, call: async (req, signal) => (await reply.call(req, signal)).content };
}

/** A managed chat tool; sampled calls (temperature > 0) are never cached. */
export function chatTool(cfg: ChatConfig, opts: ManagedToolOptions<ChatRequest> = {}): ManagedTool<ChatRequest, string> {
  return new ManagedTool('chat', chatSource(cfg), { cacheable: (r) => (r.temperature ?? 1) === 0, ...opts });
}

/** A plain `messages -> text` function over a chat tool, for judges, summarisers, reconstructors. */
export function chatFn(tool: ManagedTool<ChatRequest, string>, defaults: Omit<ChatRequest, 'messages'> = { temperature: 0 }): ChatFn {
  return (messages) => tool.call({ ...defaults, messages });
}

/**
 * A chat model as a ReAct Policy: system prompt, question, then each step as an assistant turn and each
 * observation as a user turn wrapped in <tool_response> (Qwen-Agent's layout).
 */
export function chatPolicy(tool: ManagedTool<ChatRequest, string>, name: string, sampling: { temperature?: number; top_p?: number; max_tokens?: number } = {}): Policy {
  return {
    name,
    generate: (_context: string, opts: GenerateOptions): Promise<string> => tool.call(chatRequest(opts, sampling)),
  };
}

/** One turn's request in Qwen-Agent's layout: the system prompt, the question, then assistant and <tool_response> turns. */
export function chatRequest(opts: GenerateOptions, sampling: { temperature?: number; top_p?: number; max_tokens?: number }): ChatRequest {
  const messages: ChatMessage[] = [
    { role: 'system', content: opts.turns.system },
    { role: 'user', content: opts.turns.question },
  ];
  for (const s of opts.turns.steps) {
    messages.push({ role: 'assistant', content: s.raw ?? `<think>\n${s.think}\n</think>\n${renderAction(s.action)}` });
    if (s.observation !== undefined) messages.push({ role: 'user', content: renderObservation(s.observation).trimEnd() });
  }
  return { messages, stop: opts.stop, max_tokens: sampling.max_tokens ?? opts.maxNewTokens, temperature: sampling.temperature ?? 1, top_p: sampling.top_p ?? 1 };
}

// ---------- generic HTTP search and page fetch ----------

export interface HttpSearchConfig {
  name?: string;
  /** e.g. 'http://host/search?q={query}&n=10'. */
  urlTemplate: string;
  /** Path of the result array in the JSON response ('' when the response is the array). */
  resultsPath: string;
  /** Paths of the fields inside one result. */
  fields: { title: string; snippet: string; url: string };
  headers?: Record<string, string>;
}

export function httpSearchSource(cfg: HttpSearchConfig): ToolSource<{ query: string }, SearchResult[]> {
  const name = cfg.name ?? 'http-search';
  return {
    name,
    async call({ query }, signal) {
      const text = await httpText(name, fillTemplate(cfg.urlTemplate, { query }), { headers: cfg.headers }, signal);
      const items = getPath(parseJson(name, text), cfg.resultsPath);
      if (!Array.isArray(items)) throw new ToolError('malformed', `${name}: no result array at '${cfg.resultsPath}'`, true);
      return items.map((it) => ({
        title: String(getPath(it, cfg.fields.title) ?? ''),
        snippet: String(getPath(it, cfg.fields.snippet) ?? ''),
        url: String(getPath(it, cfg.fields.url) ?? ''),
      }));
    },
  };
}

export interface PageContent {
  title: string;
  text: string;
}

export interface HttpPageConfig {
  name?: string;
  /** e.g. 'http://host/read?url={url}' (a Jina-style reader) or '{url}' to fetch the page itself. */
  urlTemplate: string;
  /** When set, the response is JSON and the page text is at this path; otherwise the body is the text. */
  textPath?: string;
  titlePath?: string;
  headers?: Record<string, string>;
}

export function httpPageSource(cfg: HttpPageConfig): ToolSource<{ url: string }, PageContent> {
  const name = cfg.name ?? 'http-page';
  return {
    name,
    async call({ url }, signal) {
      const target = cfg.urlTemplate === '{url}' ? url : fillTemplate(cfg.urlTemplate, { url });
      const body = await httpText(name, target, { headers: cfg.headers }, signal);
      if (cfg.textPath === undefined) return { title: url, text: body };
      const json = parseJson(name, body);
      const text = getPath(json, cfg.textPath);
      if (typeof text !== 'string') throw new ToolError('malformed', `${name}: no text at '${cfg.textPath}'`, true);
      const title = cfg.titlePath ? getPath(json, cfg.titlePath) : undefined;
      return { title: typeof title === 'string' ? title : url, text };
    },
  };
}
