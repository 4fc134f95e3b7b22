// `sailor web serve`: the simulated web of a graph as an HTTP service (server/web-service.ts) for a trainer
// on other machines; docs/verl.md shows it behind verl's search tool.
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
function serviceKey(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  const given = process.env.SAILOR_WEB_KEY;
  if (given === undefined || given === '') return randomBytes(24).toString('base64url'); // set empty: as if unset
  const weak = weakKeyReason(given);
  if (weak) throw new LabError('bad_request', `SAILOR_WEB_KEY is refused: ${weak} (unset it and a random key is made and printed)`);
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

export const webCommands: CliCommand[] = [webServe];
