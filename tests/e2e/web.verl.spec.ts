// A verl run back in the lab, in Debian Chromium against the real `sailor serve`: the Runs view's "Import a verl
// run" form with the paths of files written in verl's shapes (tests/e2e/verl-fixture.ts names verl's source
// lines), the dashboard's charts under the lab's names filling from verl's metrics, a new line appended while
// following arriving live, verl's own metrics under "all metrics", a chart point opening the rollouts in the
// inspector, and a bad file refused with its file and line named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { clickLastPoint, servedLab, shooter, watchConsole } from './lab';
import { appendVerlStep, VERL_QUESTION, writeVerlRunFiles } from './verl-fixture';

const { server } = servedLab();
const shot = shooter('verl', process.env.SAILOR_SHOTS_DIR);
const points = async (cell: Locator): Promise<number> => Number(await cell.getAttribute('data-points'));

test('Import a verl run: charts, live follow, all metrics, trajectories, bad input', async ({ page }) => {
  test.setTimeout(120_000);
  const consoleErrors = watchConsole(page);
  const files = writeVerlRunFiles(mkdtempSync(join(tmpdir(), 'verl-e2e-')));
  await page.goto(server.url + '#/runs');

  // ---------- a bad file first: refused, its file and line named, no run made ----------
  await page.getByTestId('runs-import-verl').click();
  const form = page.getByTestId('verl-import');
  const bad = join(files.dir, 'lab-metrics.jsonl');
  writeFileSync(bad, JSON.stringify({ step: 1, time: 'now', metrics: { 'sft/loss': 1 } }) + '\n');
  await form.getByTestId('verl-metrics').fill(bad);
  await form.getByTestId('verl-import-submit').click();
  await expect(form.getByTestId('verl-import-error')).toContainText(`${bad}:1: not a verl metrics file`);
  await shot(page, 'bad-file');

  // ---------- the run, followed ----------
  await form.getByTestId('verl-metrics').fill(files.metrics);
  await form.getByTestId('verl-rollouts').fill(files.rollouts);
  await form.getByTestId('verl-validation').fill(files.validation);
  await form.getByTestId('verl-episodes').fill(files.episodes);
  await form.getByTestId('verl-name').fill('verl GRPO 7B');
  await form.getByTestId('verl-follow').check();
  await shot(page, 'form');
  await form.getByTestId('verl-import-submit').click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId('run-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('run-name')).toHaveText('verl GRPO 7B');
  await expect(row.getByTestId('run-status')).toHaveText('running');
  await expect(row.getByTestId('run-metric-eval/pass@1').getByTestId('last')).toHaveText('0.500');

  // The RL section's charts under the lab's names: three training steps (two timings each), two evaluations.
  const dash = page.getByTestId('run-dashboard');
  const perStep = { 'rl-reward': 1, 'rl-entropy': 1, 'rl-clipfrac': 1, 'rl-grad-norm': 1, 'rl-tool-calls': 1, 'rl-response-tokens': 1, 'rl-timing': 2 };
  for (const [id, n] of Object.entries(perStep)) await expect.poll(() => points(dash.getByTestId(`dash-chart-${id}`)), { message: id }).toBe(3 * n);
  await expect.poll(() => points(dash.getByTestId('dash-chart-rl-pass1'))).toBe(2);
  await shot(page, 'dashboard');

  // verl appends a step: the chart grows without a reload (run.metrics over the WebSocket).
  appendVerlStep(files.metrics, 4);
  await expect.poll(() => points(dash.getByTestId('dash-chart-rl-reward')), { timeout: 10_000 }).toBe(4);
  await expect(row.getByTestId('run-step')).toHaveText('4');

  // verl's own metrics, kept under their names, under "all metrics".
  await dash.getByTestId('dash-all').locator('summary').click();
  await expect(dash.getByTestId('dash-chart-perf/throughput')).toBeVisible();
  await expect(dash.getByTestId('dash-chart-num_turns/mean')).toBeVisible();
  await dash.getByTestId('dash-all').scrollIntoViewIfNeeded();
  await shot(page, 'all-metrics');

  // ---------- a point opens the step's rollouts; the decoded turns read as the lab's steps ----------
  await clickLastPoint(page, dash.getByTestId('dash-chart-rl-reward'));
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'trajectories');
  await expect(page.getByTestId('traj-set-picker')).toHaveValue(/^rl:.*-verl-.*:3$/);
  await expect(page.getByTestId('traj-set-picker')).toContainText('RL rollouts at step 3');
  await expect(page.getByTestId('traj-row')).toHaveCount(4);
  await page.getByTestId('traj-row').first().click();
  await expect(page.getByTestId('traj-view')).toContainText(VERL_QUESTION);
  await expect(page.getByTestId('traj-view')).toContainText('first published algorithm');
  await shot(page, 'trajectory');

  // Following stops with Cancel; the run is then finished.
  await page.getByTestId('nav-runs').click();
  await row.getByTestId('run-cancel').click();
  await expect(row.getByTestId('run-status')).toHaveText('finished');
  // The one 400 is the refused bad file (bad_input), which the form showed.
  expect(consoleErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  expect(consoleErrors.length).toBeLessThanOrEqual(1);
});

test('A verl run imported from its metrics alone is described as what it is', async ({ page }) => {
  test.setTimeout(90_000);
  const consoleErrors = watchConsole(page);
  const files = writeVerlRunFiles(mkdtempSync(join(tmpdir(), 'verl-e2e-')));
  await page.goto(server.url + '#/runs');
  await page.getByTestId('runs-import-verl').click();
  const form = page.getByTestId('verl-import');
  await form.getByTestId('verl-metrics').fill(files.metrics);
  await form.getByTestId('verl-name').fill('verl metrics only');
  await form.getByTestId('verl-import-submit').click();
  await expect(form).toHaveCount(0);
  const row = page.locator('[data-testid="run-row"]', { hasText: 'verl metrics only' });
  await expect(row.getByTestId('run-status')).toHaveText('finished');
  // Its duration is verl's (25 s a step in the fixture), not the 0 s of a run no lab job trained.
  await expect(row.getByTestId('run-duration')).not.toHaveText(/^0\s*s$/);
  await row.getByTestId('run-name').click();
  const dash = page.getByTestId('run-dashboard');
  await expect(dash.getByTestId('dash-rl')).toBeVisible();
  // No lab words for what verl did not do: every empty chart and every note is about the import.
  const text = await dash.innerText();
  expect(text).not.toMatch(/zero-std groups|\bsynchronous RL|None yet|no evaluation yet/);
  await expect(dash.getByTestId('dash-evals-none')).toContainText('No validation generations were imported');
  await expect(dash.getByTestId('dash-imported-no-rollouts')).toContainText('No rollouts were imported');
  // Nothing promises a click that opens nothing.
  expect(text).not.toContain('click a point');
  // verl's learning rate of 1e-6 reads as such in the chart's legend, not 0.
  const lr = dash.getByTestId('dash-chart-actor/lr');
  await clickLastPoint(page, lr);
  await expect(lr.locator('.u-legend')).toContainText('1e-6');
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'runs'); // no rollouts to open
  await shot(page, 'metrics-only');
  // Compare says why there is nothing to pick.
  await page.getByTestId('nav-compare').click();
  // No comparison exists yet, so the page opens the form by itself once its list has loaded (reading the
  // toggle's label before then raced that and closed the form again).
  await expect(page.getByTestId('cmp-empty')).toBeVisible();
  await expect(page.getByTestId('cmp-runs')).toBeVisible();
  const run = page.locator('[data-testid="cmp-run"]', { hasText: 'verl metrics only' });
  await expect(run.getByTestId('cmp-run-no-checkpoints')).toContainText('imported from verl');
  await shot(page, 'metrics-only-compare');
  expect(consoleErrors).toEqual([]);
});
