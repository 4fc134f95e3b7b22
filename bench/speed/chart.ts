// Chart speed: the app's MetricChart.vue (uPlot + TensorBoard-style smoothing, as the Runs dashboard
// draws it) with 100k points x 3 series in the system Chromium. Prints the time to the first draw and to
// re-draw after appending 1k points to every series, with a breakdown (align + smooth vs. uPlot).
// Run: npx tsx bench/speed/chart.ts [--points N] [--series K] [--append A] [--repeats R] [--json]
// The page (bench/speed/chart/index.html) is bundled with Vite into a temp dir and served on 127.0.0.1.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import vue from '@vitejs/plugin-vue';
import { chromium } from '@playwright/test';

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '100000' },
    series: { type: 'string', default: '3' },
    append: { type: 'string', default: '1000' },
    repeats: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false },
  },
});
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const log = (...xs: unknown[]): void => console.error(...xs);

interface Figures {
  points: number;
  series: number;
  append: number;
  smoothing: number;
  alignMs: number;
  smoothMs: number;
  firstDrawSyncMs: number;
  firstDrawMs: number;
  redrawSyncMs: number;
  redrawMs: number;
  redrawAllMs: number[];
  idleFramesMs: number;
}

const out = mkdtempSync(join(tmpdir(), 'sailor-chart-bench-'));
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = resolve(out, '.' + (path === '/' ? '/index.html' : path));
  if (!file.startsWith(out) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});

try {
  log('bundling bench/speed/chart/index.html …');
  await build({ root: resolve('bench/speed/chart'), base: './', configFile: false, logLevel: 'warn', plugins: [vue()], build: { outDir: out, emptyOutDir: true } });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 400 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => (globalThis as unknown as { benchReady?: boolean }).benchReady === true);
    const run = (smoothing: number): Promise<Figures> =>
      page.evaluate(
        (o) => (globalThis as unknown as { benchChart: (o: unknown) => Promise<Figures> }).benchChart(o),
        { n: Number(values.points), count: Number(values.series), append: Number(values.append), smoothing, repeats: Number(values.repeats) },
      );
    await run(0.6); // warm-up: JIT, fonts, canvas
    const results = [await run(0.6), await run(0)];
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    const env = { chromium: browser.version(), cpus: cpus().length, load: loadavg().map((l) => l.toFixed(2)).join(' ') };
    if (values.json) console.log(JSON.stringify({ env, results }));
    else {
      console.log(`MetricChart (uPlot) in Chromium ${env.chromium}, ${env.cpus} cores, load ${env.load}`);
      for (const r of results) {
        console.log(
          [
            `${r.series} series x ${r.points.toLocaleString('en-US')} points, smoothing ${r.smoothing}:`,
            `  first draw        ${r.firstDrawMs.toFixed(0)} ms to painted (${r.firstDrawSyncMs.toFixed(0)} ms of script before the frame)`,
            `  +${r.append} points each  ${r.redrawMs.toFixed(0)} ms to painted, median of ${r.redrawAllMs.length} (${r.redrawSyncMs.toFixed(0)} ms of script; all: ${r.redrawAllMs.map((x) => x.toFixed(0)).join(', ')})`,
            `  of which          align ${r.alignMs.toFixed(0)} ms, smooth ${r.smoothMs.toFixed(0)} ms per draw; two idle frames take ${r.idleFramesMs.toFixed(0)} ms`,
          ].join('\n'),
        );
      }
    }
  } finally {
    await browser.close();
  }
} finally {
  server.close();
  rmSync(out, { recursive: true, force: true });
}
