// `sailor policy serve`: a lab model (a run's checkpoint, the base model, an untrained one) as an OpenAI-compatible
// server: GET /v1/models and POST /v1/chat/completions, with each generated token's log-probability in OpenAI's
// shape (choices[0].logprobs.content). Any OpenAI client plays it: the `openai` package, TRL or verl tooling,
// another lab's saved endpoint. The lab's endpoint agent sends Qwen-Agent's layout, which is read back into the
// question and steps (agent/chat-turns.ts), so the served policy is given the context it reads in the lab and
// samples its turn as the lab does (train/policy/policy.ts checkpointTurns), stop tags and all.
// Loopback needs no key; any other address needs the bearer key (the rules of `sailor web serve`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt, randomUUID } from 'node:crypto';
import { boundedMessage, errorMessage, LabError, type ErrorCode } from '../base/errors';
import { describeValue, isObj, type Obj } from '../util/fields';
import { createRng } from '../util/rng';
import { turnsOf, type ChatTurnMessage } from '../agent/chat-turns';
import type { GPT } from '../model/gpt';
import type { Tokenizer } from '../model/tokenizer';
import type { TurnSampler } from '../model/acting-threads';
import { checkpointTurns, TURN_TOKENS } from '../train/policy/policy';
import { MAX_BODY, readBody, send, sendJson, STATUS_OF } from './http-util';
import { listenError, serviceAccess } from './web-service';

/** A loaded model, served under `name`. */
export interface ServedPolicy {
  name: string;
  model: GPT;
  tokenizer: Tokenizer;
  /** Concurrent requests decode their turns in one batch (a BatchDecoder). */
  decoder?: TurnSampler;
  /** The temperature when a request names none (a checkpoint: its run's evaluation temperature). */
  temperature: number;
  /** When it was loaded, for /v1/models' `created`. */
  created: number;
}

const bad = (field: string, message: string): LabError => new LabError('bad_request', `${field}: ${message}`);

function num(body: Obj, field: string, min: number, max: number, int: boolean): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (int && !Number.isInteger(v))) {
    throw bad(field, `expected ${int ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${describeValue(v)}`);
  }
  return v;
}

/** A message's text: a string, or OpenAI's list of content parts (text parts only). */
function messagesOf(v: unknown): ChatTurnMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('messages', `expected a non-empty list of {role, content}, got ${describeValue(v)}`);
  return v.map((m, i) => {
    if (!isObj(m) || typeof m.role !== 'string') throw bad(`messages[${i}]`, `expected {role, content}, got ${describeValue(m)}`);
    const c = m.content;
    if (typeof c === 'string') return { role: m.role, content: c };
    if (Array.isArray(c) && c.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string')) return { role: m.role, content: c.map((p) => (p as { text: string }).text).join('') };
    throw bad(`messages[${i}].content`, `expected text, got ${describeValue(c)}`);
  });
}

/** One chat completion in OpenAI's response shape; throws LabError naming a bad field (400) or an unknown model (404). */
export async function chatCompletion(served: ServedPolicy, body: Obj): Promise<unknown> {
  if (body.model !== undefined && body.model !== served.name) throw new LabError('not_found', `model: '${String(body.model)}' is not served here; this server serves '${served.name}'`);
  if (body.stream === true) throw bad('stream', 'streaming is not served: leave stream out or false');
  if ((num(body, 'n', 1, 1, true) ?? 1) !== 1) throw bad('n', 'one choice per request');
  if ((num(body, 'top_logprobs', 0, 20, true) ?? 0) > 0) throw bad('top_logprobs', "the alternatives' log-probabilities are not served; logprobs: true gives each generated token's own");
  if (body.logprobs !== undefined && body.logprobs !== null && typeof body.logprobs !== 'boolean') throw bad('logprobs', `expected true or false, got ${describeValue(body.logprobs)}`);
  const messages = messagesOf(body.messages);
  const maxTokens = num(body, 'max_completion_tokens', 1, 1 << 20, true) ?? num(body, 'max_tokens', 1, 1 << 20, true) ?? TURN_TOKENS;
  const temperature = num(body, 'temperature', 0, 2, false) ?? served.temperature;
  const topP = num(body, 'top_p', 0, 1, false) ?? 1;
  if (topP === 0) throw bad('top_p', 'expected a number above 0 and at most 1, got 0');
  const seed = num(body, 'seed', 0, 2 ** 32 - 1, true) ?? randomInt(2 ** 31);
  const { system, question, steps } = turnsOf(messages);
  const sample = checkpointTurns(served.model, served.tokenizer, { temperature, topP, ...(served.decoder ? { decoder: served.decoder } : {}) });
  const turn = await sample({ stop: [], maxNewTokens: maxTokens, rng: createRng(seed), turns: { system: system ?? '', question, steps } });
  const eos = served.tokenizer.special('<|eos|>');
  const content = turn.tokens.flatMap((id, i) => {
    if (id === eos) return [];
    const token = served.tokenizer.decode([id]);
    return [{ token, logprob: turn.logProbs[i]!, bytes: [...served.tokenizer.tokenBytes(id)], top_logprobs: [] }];
  });
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: served.name,
    choices: [{ index: 0, message: { role: 'assistant', content: turn.text }, logprobs: body.logprobs === true ? { content } : null, finish_reason: turn.finish === 'stop' ? 'stop' : 'length' }],
    usage: { prompt_tokens: turn.prompt.length, completion_tokens: turn.tokens.length, total_tokens: turn.prompt.length + turn.tokens.length },
  };
}

export interface PolicyServiceOptions {
  served: ServedPolicy;
  host?: string;
  port?: number;
  /** Required unless the host is loopback; requests then need `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
}

/** OpenAI's error shape, so clients raise their usual errors with the lab's message. */
function sendError(res: ServerResponse, code: ErrorCode, message: string, status = STATUS_OF[code]): void {
  sendJson(res, status, { error: { message: boundedMessage(message), type: status < 500 ? 'invalid_request_error' : 'server_error', code } });
}

export async function startPolicyService(opts: PolicyServiceOptions): Promise<{ origin: string; baseUrl: string; port: number; close(): Promise<void> }> {
  const host = opts.host ?? '127.0.0.1';
  const trusted = serviceAccess(host, opts.apiKey);
  const { served } = opts;

  async function complete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if ('tooLarge' in body) return sendError(res, 'bad_request', `the request body is over ${MAX_BODY} bytes`, 413);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return sendError(res, 'bad_request', 'the request body is not valid JSON');
    }
    if (!isObj(parsed)) return sendError(res, 'bad_request', `the request body must be a JSON object, got ${describeValue(parsed)}`);
    try {
      sendJson(res, 200, await chatCompletion(served, parsed));
    } catch (err) {
      sendError(res, err instanceof LabError ? err.code : 'internal', errorMessage(err));
    }
  }

  const server: Server = createServer((req, res) => {
    if (!trusted(req)) {
      if (opts.apiKey) send(res, 401, JSON.stringify({ error: { message: 'send the key as Authorization: Bearer <key>', type: 'invalid_request_error', code: 'unauthorized' } }), 'application/json; charset=utf-8', { 'www-authenticate': 'Bearer' });
      else sendError(res, 'bad_request', 'forbidden: wrong Host, or a browser Origin', 403);
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    if (path === '/v1/models' && req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: [{ id: served.name, object: 'model', created: served.created, owned_by: 'sailor-lab' }] });
    } else if (path === '/v1/chat/completions' && req.method === 'POST') {
      complete(req, res).catch(() => res.destroy());
    } else {
      sendError(res, 'not_found', `no route ${req.method} ${path}: use GET /v1/models or POST /v1/chat/completions`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, opts.port ?? 0)));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
