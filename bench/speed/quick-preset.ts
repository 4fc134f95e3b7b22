// The product's first journey, timed: a fresh data directory, the real `sailor serve`, Chromium driving the
// wizard with its defaults (the quick preset): build the graph, synthesise training, held-out and RL
// questions, launch from the bundled base model; then RFT data, SFT and evaluations (and, with --rl, the
// default RL stage) run while the dashboard is watched. Prints the wall time of each phase and the run's
// evaluations; leaves screenshots in test-results/screenshots/quick-*.png.
// Run (after `npm run build`): npx tsx bench/speed/quick-preset.ts [--steps N] [--rl] [--seed-offset K]
// (fewer SFT steps for a dry run; K > 0 adds K to the question sets' and the run's seeds, keeping the graph the
// bundled base model holds out: another data seed of the same preset)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../../playwright.config';
import { serve } from '../../tests/e2e/serve';
import { readMetrics } from '../../main/lab/runs/metrics';
import { metricsFile } from '../../main/lab/runs/layout';

const { values } = parseArgs({ options: { steps: { type: 'string' }, rl: { type: 'boolean' }, 'timeout-min': { type: 'string', default: '60' }, 'seed-offset': { type: 'string', default: '0' } } });
const seedOffset = Number(values['seed-offset']);
const SHOTS = 'test-results/screenshots';
mkdirSync(SHOTS, { recursive: true });

const t0 = performance.now();
const since = (t: number): string => `${((performance.now() - t) / 1000).toFixed(0)} s`;
const lab = await serve();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
const phases: [string, string][] = [];

/** A screenshot is a by-product: on a loaded machine one that times out must not end the measurement. */
async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, timeout: 120_000 }).catch((err: Error) => console.error(`screenshot ${name} skipped: ${err.message.split('\n')[0]}`));
}

/** Waits until the element's data-status is `succeeded` (fails fast on a failed job). */
async function succeeded(testid: string, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const status = await page.getByTestId(testid).getAttribute('data-status', { timeout: timeoutMs });
    if (status === 'succeeded') return;
    if (status === 'failed') throw new Error(`${testid}: the job failed: ${await page.getByTestId(`${testid}-message`).textContent()}`);
    if (Date.now() > end) throw new Error(`${testid}: still ${status} after ${timeoutMs / 1000} s`);
    await page.waitForTimeout(250);
  }
}
try {
  await page.goto(lab.url + '#/runs');
  await page.getByTestId('runs-new').click();
  const wizard = page.getByTestId('run-wizard');

  let t = performance.now();
  await wizard.getByTestId('wiz-build').click();
  await succeeded('wiz-build-job');
  phases.push(['build graph (default)', since(t)]);
  for (const [kind, testid] of [['training questions', 'train'], ['held-out questions', 'heldout'], ['RL questions', 'rl']] as const) {
    t = performance.now();
    if (seedOffset) {
      const rng = wizard.getByTestId(`wiz-synth-${testid}-rng`);
      await rng.fill(String(Number(await rng.inputValue()) + seedOffset));
    }
    await wizard.getByTestId(`wiz-synth-${testid}`).click();
    await succeeded(`wiz-synth-${testid}-job`);
    phases.push([`synthesise ${kind}`, since(t)]);
  }
  await wizard.getByTestId('wiz-next').click(); // model
  await wizard.getByTestId('wiz-next').click(); // training
  if (values.steps) await wizard.getByTestId('wiz-sft-steps').fill(values.steps);
  await wizard.getByTestId('wiz-next').click(); // RL (off by default)
  if (values.rl) await wizard.getByTestId('wiz-stage-sft+rl').check({ force: true });
  await wizard.getByTestId('wiz-next').click(); // review
  t = performance.now();
  await succeeded('wiz-estimate');
  if (seedOffset) {
    // The seed is part of the config: the estimate is measured again for it, as a user would see it.
    const rng = wizard.getByTestId('wiz-rng');
    await rng.fill(String(Number(await rng.inputValue()) + seedOffset));
    t = performance.now();
    await wizard.getByTestId('wiz-estimate-remeasure').click();
    // The card keeps the old result's status until the new job is queued: wait for it to leave 'succeeded' first.
    const estimateStatus = 'document.querySelector(\'[data-testid="wiz-estimate"]\')?.getAttribute(\'data-status\')';
    await page.waitForFunction(`${estimateStatus} !== 'succeeded'`, null, { timeout: 30_000 });
    await succeeded('wiz-estimate');
  }
  const estimate = (await wizard.getByTestId('wiz-estimate-total').textContent({ timeout: 300_000 }))?.trim() ?? '?';
  phases.push([`estimate (warm-up) → ${estimate}`, since(t)]);
  await shoot('quick-review');
  await wizard.getByTestId('wiz-launch').click();

  t = performance.now();
  const row = page.getByTestId('run-row').first();
  const runId = (await row.getAttribute('data-run-id', { timeout: 300_000 }))!;
  const deadline = Date.now() + Number(values['timeout-min']) * 60_000;
  let shot = 0;
  for (;;) {
    const status = await row.getAttribute('data-status', { timeout: 300_000 });
    if (status === 'finished' || status === 'failed' || Date.now() > deadline) break;
    await page.waitForTimeout(30_000);
    if (shot++ % 10 === 0) await shoot('quick-dashboard-live');
  }
  const status = await row.getAttribute('data-status', { timeout: 300_000 });
  phases.push([`training run (${status})`, since(t)]);
  await shoot('quick-dashboard-finished');

  console.log('quick preset from the wizard, fresh data directory');
  for (const [name, took] of phases) console.log(`  ${name.padEnd(48)} ${took}`);
  console.log(`  ${'total'.padEnd(48)} ${since(t0)}`);
  for (const r of readMetrics(metricsFile(lab.home, runId)).filter((m) => m.metrics['eval/pass@1'] !== undefined)) {
    const m = r.metrics;
    console.log(`  eval at step ${r.step}: pass@1 ${m['eval/pass@1']!.toFixed(3)}, tool calls ${m['rollout/tool_calls_mean']?.toFixed(1)}, format reward ${m['reward/format']?.toFixed(3)}`);
  }
  console.log(`  data directory: ${lab.home} (run ${runId}; ${join(lab.home, 'runs', runId)})`);
} finally {
  console.error(`data directory: ${lab.home}`);
  await browser.close();
  await lab.stop();
}
