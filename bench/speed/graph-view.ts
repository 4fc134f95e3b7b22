// The graph view's frame times at 12000 and 50000 edges, with level of detail off (every label, arrows on
// every edge, as before) and on (labels picked by zoom and priority, haystack edges): the real `sailor serve`
// on a fresh data directory, Chromium driving the Graph view. For each graph and mode it pans in circles and
// zooms in and out by the wheel, at the whole graph's zoom and zoomed in, recording every animation frame;
// prints median and p95 milliseconds per frame and the labels drawn. Screenshots go to
// test-results/screenshots/graph-*.png. Graphs are built once with `sailor kg build --rng 7 --max-edges N`
// and kept in the cache folder. `kg build` stops at 20000 edges (its limit), so a larger graph is synthesised:
// the union of three 20000-edge walks (rng 7, 8, 9: they overlap much), then copies of the rng-7 walk with
// every id suffixed, until N edges (the printout says so).
// Also prints the seconds from picking the graph to its layout drawn (loading, laying out, drawing).
// Run (after `npm run build`): npx tsx bench/speed/graph-view.ts [--edges 12000,50000] [--lod off,on] [--cache DIR]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../../playwright.config';
import { serve } from '../../tests/e2e/serve';
import { LabCore } from '../../main/lab/app/core';
import { importArtefact } from '../../main/lab/cli/import';
import { readGraphFile, writeGraphFile } from '../../main/lab/kg/io';
import type { Graph } from '../../main/lab/formats';

const { values } = parseArgs({ options: { edges: { type: 'string', default: '12000,50000' }, lod: { type: 'string', default: 'off,on' }, cache: { type: 'string', default: join(tmpdir(), 'sailor-bench-graphs') } } });
const SHOTS = 'test-results/screenshots';
mkdirSync(SHOTS, { recursive: true });
mkdirSync(values.cache, { recursive: true });
const sizes = values.edges.split(',').map(Number);

// ---- graphs, built once
const KG_MAX = 20_000;
function built(n: number, rng: number): string {
  const file = join(values.cache, `g-${n}${rng === 7 ? '' : `-rng${rng}`}.json`);
  if (!existsSync(file)) {
    console.error(`building a ${n}-edge graph, rng ${rng} (once, cached in ${file})`);
    execFileSync(process.execPath, ['bin/sailor.mjs', 'kg', 'build', '--rng', String(rng), '--max-edges', String(n), '--out', file], { stdio: 'inherit' });
  }
  return file;
}
/** A graph of `n` edges beyond what `kg build` makes: three walks' union, then suffixed copies of the first. */
function synthesised(n: number): string {
  const file = join(values.cache, `g-${n}-synth.json`);
  if (existsSync(file)) return file;
  const walks = [7, 8, 9].map((rng) => readGraphFile(built(KG_MAX, rng)));
  const nodes = new Map<string, Graph['nodes'][number]>();
  const edges = new Map<string, Graph['edges'][number]>();
  for (const w of walks) {
    for (const v of w.nodes) if (!nodes.has(v.id)) nodes.set(v.id, v);
    for (const e of w.edges) if (!edges.has(e.id)) edges.set(e.id, e);
  }
  for (let copy = 2; edges.size < n; copy++) {
    const sfx = `~${copy}`;
    for (const v of walks[0]!.nodes) nodes.set(v.id + sfx, { ...v, id: v.id + sfx });
    for (const e of walks[0]!.edges) {
      if (edges.size >= n) break;
      edges.set(e.id + sfx, { ...e, id: e.id + sfx, source: e.source + sfx, target: e.target + sfx });
    }
  }
  const used = new Set([...edges.values()].flatMap((e) => [e.source, e.target]));
  const graph: Graph = { ...walks[0]!, info: { ...walks[0]!.info, synthesised: `union of kg build rng 7, 8, 9 at ${KG_MAX} edges, then suffixed copies of rng 7, to ${n} edges` }, nodes: [...nodes.values()].filter((v) => used.has(v.id)), edges: [...edges.values()] };
  writeGraphFile(file, graph);
  return file;
}
const files = sizes.map((n) => {
  const file = n <= KG_MAX ? built(n, 7) : synthesised(n);
  const g = readGraphFile(file);
  const degree = new Map<string, number>();
  for (const e of g.edges) for (const id of [e.source, e.target]) degree.set(id, (degree.get(id) ?? 0) + 1);
  const names = new Map<string, number>();
  for (const v of g.nodes) names.set(v.name, (names.get(v.name) ?? 0) + 1);
  // A well-connected node with a unique name: the one the bench selects.
  const hub = [...g.nodes].filter((v) => names.get(v.name) === 1).sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0))[0]!;
  return { asked: n, file, synthesised: n > KG_MAX, nodes: g.nodes.length, edges: g.edges.length, hub: hub.name, hubDegree: degree.get(hub.id) ?? 0 };
});

const home = mkdtempSync(join(tmpdir(), 'sailor-bench-graph-'));
const core = await LabCore.open({ home, detectBackend: false });
const ids: string[] = [];
for (const f of files) ids.push((await importArtefact(core.db, home, 'graphs', f.file)).id);
await core.close();
const lab = await serve(home);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

/** Frame times (ms) while `move` runs: every requestAnimationFrame interval. */
async function frames(page: Page, move: () => Promise<void>): Promise<number[]> {
  // A string, not a function: tsx would wrap a named inner function in a helper the page does not have.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__rec = true;
    const tick = (t) => { if (!window.__rec) return; window.__frames.push(t); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  await move();
  const ts = (await page.evaluate('(() => { window.__rec = false; return window.__frames; })()')) as number[];
  return ts.slice(1).map((t, i) => t - ts[i]!);
}

const stat = (xs: number[]): { median: number; p95: number; n: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? NaN, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] ?? NaN, n: s.length };
};

async function panAndZoom(page: Page): Promise<number[]> {
  const box = (await page.getByTestId('graph-canvas').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  return frames(page, async () => {
    // Pan: drag in a circle, twice.
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 0; i <= 60; i++) {
      const a = (i / 30) * Math.PI * 2;
      await page.mouse.move(cx + Math.cos(a) * 120, cy + Math.sin(a) * 80);
    }
    await page.mouse.up();
    // Zoom: the wheel in, then out.
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -120);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 120);
  });
}

const rows: string[] = [];
try {
  for (const [i, f] of files.entries()) {
    for (const lod of values.lod.split(',')) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
      await context.addInitScript((v) => localStorage.setItem('sailor.graphLod', v), lod);
      const page = await context.newPage();
      await page.goto(lab.url + '#/graph');
      const picked = Date.now();
      await page.getByTestId('graph-picker').selectOption(ids[i]!);
      const canvas = page.getByTestId('graph-canvas');
      // A big graph opens on its communities; the whole graph is what this bench measures.
      await page.getByTestId('graph-overview').waitFor({ timeout: 600_000 });
      await page.getByTestId('overview-toggle').click();
      await canvas.locator('[data-layout="ready"]').waitFor({ timeout: 600_000 });
      const layoutS = ((Date.now() - picked) / 1000).toFixed(1); // loading, laying out and drawing
      await page.waitForTimeout(1500);
      const tag = `graph-${f.edges}-lod-${lod}`;
      await page.screenshot({ path: `${SHOTS}/${tag}-whole.png` });
      const whole = stat(await panAndZoom(page));
      const labelsWhole = await canvas.getAttribute('data-labelled');
      // Select the hub through the search: its neighbourhood comes forward, the view centres on it.
      await page.getByTestId('entity-search').fill(f.hub);
      await page.getByTestId('search-option').first().click();
      await page.waitForTimeout(1500);
      await page.screenshot({ path: `${SHOTS}/${tag}-selected.png` });
      const labelsSelected = await canvas.getAttribute('data-labelled');
      const zoomed = stat(await panAndZoom(page));
      rows.push(
        [f.edges, f.nodes, lod, layoutS, whole.median.toFixed(1), whole.p95.toFixed(1), whole.n, labelsWhole, zoomed.median.toFixed(1), zoomed.p95.toFixed(1), zoomed.n, labelsSelected].join('\t'),
      );
      console.error(`done: ${rows.at(-1)}`); // as it goes: a 50000-edge layout takes minutes
      await context.close();
    }
  }
  console.log(`graph view frame times (ms per frame, requestAnimationFrame intervals) while panning and wheel-zooming; Chromium ${CHROMIUM}, 1400×860`);
  for (const f of files) console.log(`  asked ${f.asked} edges: ${f.synthesised ? 'synthesised' : 'built'} ${f.edges} edges, ${f.nodes} nodes; selected "${f.hub}" (degree ${f.hubDegree})`);
  console.log(['edges', 'nodes', 'LOD', 'open to drawn s', 'whole: median', 'p95', 'frames', 'labels', 'selected+zoomed: median', 'p95', 'frames', 'labels'].join('\t'));
  for (const r of rows) console.log(r);
} finally {
  await browser.close();
  await lab.stop();
}
