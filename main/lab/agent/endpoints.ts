// A saved endpoint (contract/endpoints.ts) at work: read from db.json, its key read from the environment
// variable it names (never stored), played as a chat policy, and tested (models list, one short completion,
// the time each took) for the endpoints list's "test" button.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../base/errors';
import { readJsonFile } from '../store/files';
import type { Endpoint, EndpointTest } from '../contract/endpoints';
import { type ChatConfig, type ChatReply, chatReplySource, chatRequest, type ChatRequest, ManagedTool, type ToolPolicy } from './tools';
import type { LlmTurn } from '../formats/index';
import type { Policy } from './runtime';
import type { PolicyFactory } from './policies';

/** A tiny model on a loaded CPU, or a large one queued behind others: minutes, not the tool layer's 10 s. */
const ENDPOINT_TOOL_POLICY: Partial<ToolPolicy> = { timeoutMs: 180_000, retries: 3, backoffMs: 500, maxBackoffMs: 8_000, cacheSize: 0 };

/** The endpoints saved in the data directory's db.json (none when it does not exist yet). */
export function savedEndpoints(home: string): Endpoint[] {
  const file = join(home, 'db.json');
  if (!existsSync(file)) return [];
  const list = (readJsonFile(file) as { endpoints?: unknown }).endpoints;
  return Array.isArray(list) ? (list as Endpoint[]) : [];
}

export function findEndpoint(home: string, id: string): Endpoint {
  const ep = savedEndpoints(home).find((e) => e.id === id);
  if (!ep) throw new LabError('not_found', `endpoint ${id} is not saved in ${join(home, 'db.json')}`);
  return ep;
}

/** The server and model of an endpoint, with its key from the variable it names (an unset one: a clear error). */
export function endpointChat(ep: Endpoint, env: Record<string, string | undefined> = process.env): ChatConfig {
  let apiKey: string | undefined;
  if (ep.keyEnv) {
    apiKey = env[ep.keyEnv];
    if (!apiKey) throw new LabError('bad_request', `endpoint ${ep.name}: its key's variable ${ep.keyEnv} is not set in the lab's environment`);
  }
  return { baseUrl: ep.baseUrl, model: ep.model, ...(apiKey ? { apiKey } : {}) };
}

/**
 * One attempt's policy at an endpoint: each turn a chat request in Qwen-Agent's layout, with the time it took,
 * the server's token counts and log-probabilities kept for the step (`lastTurn`).
 */
export function endpointChatPolicy(tool: ManagedTool<ChatRequest, ChatReply>, name: string, ep: Pick<Endpoint, 'temperature' | 'topP' | 'maxTokens' | 'logprobs'>): Policy {
  let last: LlmTurn | undefined;
  return {
    name,
    async generate(_context, opts) {
      const t0 = performance.now();
      const req = chatRequest(opts, { temperature: ep.temperature, top_p: ep.topP, ...(ep.maxTokens ? { max_tokens: ep.maxTokens } : {}) });
      const reply = await tool.call(ep.logprobs ? { ...req, logprobs: true } : req);
      last = {
        latency_ms: Math.round(performance.now() - t0),
        ...(reply.usage?.prompt_tokens === undefined ? {} : { prompt_tokens: reply.usage.prompt_tokens }),
        ...(reply.usage?.completion_tokens === undefined ? {} : { completion_tokens: reply.usage.completion_tokens }),
        ...(reply.logprobs ? { logprobs: reply.logprobs } : {}),
      };
      return reply.content;
    },
    lastTurn: () => last,
  };
}

/** An endpoint as a policy: every attempt a conversation with the model, `inFlight` episodes (so requests) at once. */
export function endpointPolicyFactory(ep: Endpoint, spec: string, env?: Record<string, string | undefined>): PolicyFactory {
  // Sampled calls are never cached; retries back off (the tool layer), a server error ends the episode as policy_error.
  const tool = new ManagedTool('chat', chatReplySource(endpointChat(ep, env)), { policy: ENDPOINT_TOOL_POLICY, cacheable: () => false });
  return { spec, kind: 'llm', forQA: () => endpointChatPolicy(tool, spec, ep), inFlight: ep.inFlight };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: Math.round(performance.now() - t0) };
}

async function getJson(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ENDPOINT_TOOL_POLICY.timeoutMs!) });
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** What the server answers: its model list, then one short completion of the endpoint's model. */
export async function testEndpoint(ep: Endpoint, env?: Record<string, string | undefined>): Promise<EndpointTest> {
  const out: EndpointTest = { ok: false, models: null, modelsMs: null, completion: null, completionMs: null };
  try {
    const chat = endpointChat(ep, env);
    const base = chat.baseUrl.replace(/\/+$/, '');
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(chat.apiKey ? { authorization: `Bearer ${chat.apiKey}` } : {}) };
    const models = await timed(() => getJson(`${base}/models`, { headers }));
    const data = (models.value as { data?: Array<{ id?: unknown }> }).data;
    out.models = Array.isArray(data) ? data.map((m) => String(m.id)) : [];
    out.modelsMs = models.ms;
    const body = { model: ep.model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 8, temperature: 0 };
    const reply = await timed(() => getJson(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) }));
    const content = (reply.value as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('the reply has no choices[0].message.content');
    out.completion = content;
    out.completionMs = reply.ms;
    out.ok = true;
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}
