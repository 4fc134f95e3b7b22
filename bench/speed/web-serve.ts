// Load test of `sailor web serve`: 64 concurrent keep-alive clients for a fixed time against the real command in
// a child process, each request a mix of what a verl run sends: POST /retrieve as verl's old SearchTool does
// (1-3 queries, topk 3, scores), /search and /visit as the exported tools do. Prints requests/s, p50/p99 latency
// and errors (any non-200 or a dropped connection counts).
// Run: npx tsx bench/speed/web-serve.ts [G.json] [--clients N] [--seconds S]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readGraphFile } from '../../main/lab/kg/io';
import { SimWeb } from '../../main/lab/agent/web';
import { createRng } from '../../main/lab/util/rng';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const CLIENTS = opt('clients', 64);
const SECONDS = opt('seconds', 15);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

function graphFile(): string {
  const given = args.find((a) => a.endsWith('.json'));
  if (given) return given;
  const file = join(mkdtempSync(join(tmpdir(), 'bench-web-')), 'g.json');
  execFileSync(process.execPath, ['bin/sailor.mjs', 'kg', 'build', '--rng', '7', '--max-edges', '3000', '--out', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  return file;
}

async function main(): Promise<void> {
  const graph = graphFile();
  if (!existsSync(graph)) throw new Error(`no graph at ${graph}`);
  const web = new SimWeb(readGraphFile(graph));
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'web', 'serve', '--graph', graph, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /sailor web serve: (http:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`web serve exited ${code}`)));
  });

  const rng = createRng(11);
  const titles = web.pages.map((p) => p.title);
  const bodies = Array.from({ length: 2000 }, (_, i) => {
    const q = (): string => (rng.next() < 0.5 ? rng.pick(titles) : `${rng.pick(titles)} ${rng.pick(['founded', 'located', 'population', 'born'])}`);
    const page = rng.pick(web.pages);
    if (i % 4 === 3) return { path: '/visit', body: { url: [page.url], goal: `what ${page.title} is known for` } };
    if (i % 4 === 2) return { path: '/search', body: { query: [q(), q()] } };
    return { path: '/retrieve', body: { queries: Array.from({ length: 1 + (i % 3) }, q), topk: 3, return_scores: true } };
  });

  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + SECONDS * 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < end) {
      const { path, body } = bodies[next++ % bodies.length]!;
      const t0 = performance.now();
      try {
        const res = await fetch(origin + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const wall = (performance.now() - t0) / 1000;
  child.kill('SIGTERM');
  console.log(`sailor web serve, ${web.pages.length} pages, ${CLIENTS} concurrent clients for ${wall.toFixed(1)} s (mix: /retrieve 1-3 queries topk 3, /search 2 queries, /visit 1 page)`);
  console.log(`requests ${latencies.length}, ${(latencies.length / wall).toFixed(0)} requests/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms, errors ${errors}`);
}

void main();
