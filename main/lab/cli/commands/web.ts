// `sailor web serve`: the simulated web of a graph as an HTTP service (server/web-service.ts) for a trainer
// on other machines; docs/verl.md shows it behind verl's search tool. `sailor policy serve`: a lab model as an
// OpenAI-compatible server (server/policy-service.ts).
import { randomBytes } from 'node:crypto';
import { readGraphFile } from '../../kg/io';
import { SimWeb } from '../../agent/web';
import { isLoopback, ROUTES, startWebService, weakKeyReason } from '../../server/web-service';
import { LabError } from '../../base/errors';
import { type CliCommand, optInt, optString, reqString, sharedOptions, untilSignal } from '../command';

/**
 * The bearer key for a non-loopback address: $SAILOR_WEB_KEY when set (a restart keeps it), else a fresh random
 * one. A set key that is blank or weak is refused before the service starts, never printed and then used.
 */
function serviceKey(host: string, envName = 'SAILOR_WEB_KEY'): string | undefined {
  if (isLoopback(host)) return undefined;
  const given = process.env[envName];
  if (given === undefined || given === '') return randomBytes(24).toString('base64url'); // set empty: as if unset
  const weak = weakKeyReason(given);
  if (weak) throw new LabError('bad_request', `${envName} is refused: ${weak} (unset it and a random key is made and printed)`);
  return given;
}

const webServe: CliCommand = {
  path: ['web', 'serve'],
  summary: 'the simulated web of a graph as an HTTP service: POST /retrieve (verl/Search-R1, ASearcher), /access, /search, /visit',
  usage: 'web serve --graph G.json [--port P] [--host H]',
  options: {
    ...sharedOptions.webGraph(),
    ...sharedOptions.port(8000),
    host: { type: 'string', description: 'address to bind; anything but loopback requires the printed API key ($SAILOR_WEB_KEY to fix it)', default: '127.0.0.1' },
  },
  async run(ctx) {
    const t0 = performance.now();
    const web = new SimWeb(readGraphFile(reqString(ctx, 'graph')));
    ctx.io.err(`indexed ${web.pages.length} pages in ${Math.round(performance.now() - t0)} ms\n`);
    const host = optString(ctx, 'host') ?? '127.0.0.1';
    const apiKey = serviceKey(host);
    const service = await startWebService({ web, host, port: optInt(ctx, 'port', 8000, { min: 0, max: 65535 }), ...(apiKey ? { apiKey } : {}) });
    ctx.io.out(`sailor web serve: ${service.origin} (POST ${Object.keys(ROUTES).join(', ')}; GET /health)\n`);
    if (apiKey) ctx.io.out(`API key: ${apiKey}\n(clients send it as the header 'Authorization: Bearer <key>'; the exported tools read $SAILOR_WEB_KEY)\n`);
    ctx.io.err(apiKey ? `listening on ${host}: every request needs the key. Ctrl+C stops.\n` : 'loopback only, no key needed. Ctrl+C stops.\n');
    await untilSignal();
    await service.close();
  },
};

const policyServe: CliCommand = {
  path: ['policy', 'serve'],
  summary: 'a lab model as an OpenAI-compatible server: GET /v1/models, POST /v1/chat/completions with per-token logprobs',
  usage: 'policy serve --policy ckpt:<run>/<step>|base|untrained[:<seed>] [--name N] [--port P] [--host H]',
  options: {
    policy: { type: 'string', description: 'the model to serve: a run\'s checkpoint ckpt:<run>/<step> (or <run>/last), base, or untrained[:<seed>]' },
    name: { type: 'string', description: 'the model name clients send and /v1/models lists (default: the policy spec)' },
    port: { type: 'string', description: 'port to listen on (0 picks a free one)', default: '8000' },
    host: { type: 'string', description: 'address to bind; anything but loopback requires the printed API key ($SAILOR_POLICY_KEY to fix it)', default: '127.0.0.1' },
  },
  async run(ctx) {
    const spec = reqString(ctx, 'policy');
    const host = optString(ctx, 'host') ?? '127.0.0.1';
    const apiKey = serviceKey(host, 'SAILOR_POLICY_KEY');
    const [{ modelSource, loadModelSource }, { BatchDecoder }, { startPolicyService }] = await Promise.all([
      import('../../train/policy/checkpoints'), import('../../model/batch-decoder'), import('../../server/policy-service'),
    ]);
    const src = modelSource(spec);
    const t0 = performance.now();
    const { model, tokenizer, where } = await loadModelSource(src);
    ctx.io.err(`loaded ${where} in ${Math.round(performance.now() - t0)} ms\n`);
    const served = { name: optString(ctx, 'name') ?? spec, model, tokenizer, decoder: new BatchDecoder(model), temperature: src.temperature, created: Math.floor(Date.now() / 1000) };
    const service = await startPolicyService({ served, host, port: optInt(ctx, 'port', 8000, { min: 0, max: 65535 }), ...(apiKey ? { apiKey } : {}) });
    ctx.io.out(`sailor policy serve: ${service.baseUrl} (model ${served.name}; GET /models, POST /chat/completions)\n`);
    if (apiKey) ctx.io.out(`API key: ${apiKey}\n(clients send it as the header 'Authorization: Bearer <key>')\n`);
    ctx.io.err(apiKey ? `listening on ${host}: every request needs the key. Ctrl+C stops.\n` : 'loopback only, no key needed. Ctrl+C stops.\n');
    await untilSignal();
    await service.close();
  },
};

export const webCommands: CliCommand[] = [webServe, policyServe];
