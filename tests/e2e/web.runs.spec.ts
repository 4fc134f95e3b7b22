// The Runs section in Debian Chromium against the real `sailor serve`: a graph and two datasets made
// through the API, then in the UI: the wizard (inline job progress, validation messages, review), a
// short real training run in a worker with its dashboard updating live from events, the finished
// run's row with last/best values, the step scrubber, and an evaluation point opening its trajectories.
import { expect, test, type Locator } from '@playwright/test';
import type { JobRecord } from '../../main/lab/contract';
import { SHOTS, servedLab, watchConsole } from './lab';

const { server, api, runJob } = servedLab();

const points = async (cell: Locator): Promise<number> => Number(await cell.getAttribute('data-points'));
/** Points of one series of a chart cell (`data-series` lists `runId|metric:points`). */
async function seriesPoints(cell: Locator, key: string): Promise<number> {
  const attr = (await cell.getAttribute('data-series')) ?? '';
  const hit = attr.split(',').find((p) => p.startsWith(`${key}:`));
  return hit ? Number(hit.slice(key.length + 1)) : 0;
}

/** Shared by the tests (serial): the data the first one made. */
const made = { graphId: '', trainId: '', heldOutId: '', firstRunId: '' };

test('wizard, a live training run, the finished row, the scrubber, an evaluation point', async ({ page }) => {
  test.setTimeout(600_000);
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/runs');

  // ---------- data through the API ----------
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 400 });
  const trainId = await runJob(page, 'synth', { graphId, count: 300, rng: 1 });
  const heldOutId = await runJob(page, 'synth', { graphId, count: 40, rng: 2 });
  Object.assign(made, { graphId, trainId, heldOutId });

  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'runs');
  await expect(page.getByTestId('runs-empty')).toBeVisible();

  // ---------- wizard: data ----------
  await page.getByTestId('runs-new').click();
  const wizard = page.getByTestId('run-wizard');
  await expect(wizard).toBeVisible();
  await expect(wizard.getByTestId('wiz-graph').locator(`option[value="${graphId}"]`)).toHaveCount(1);
  await wizard.getByTestId('wiz-graph').selectOption(graphId);
  await wizard.getByTestId('wiz-dataset').selectOption(trainId);
  // The held-out set must not be the training set.
  await wizard.getByTestId('wiz-heldout').selectOption(trainId);
  await expect(wizard.getByTestId('wiz-error-data.heldOutDatasetId')).toContainText('must differ');
  await page.screenshot({ path: `${SHOTS}/runs-wizard-data.png` });
  await wizard.getByTestId('wiz-next').click();
  await expect(wizard.getByTestId('wiz-data')).toBeVisible(); // refused to move on

  // A held-out set synthesised right here: its job's progress shows inline, then it is picked.
  await wizard.getByTestId('wiz-synth-heldout-count').fill('12');
  await wizard.getByTestId('wiz-synth-heldout-rng').fill('3');
  await wizard.getByTestId('wiz-synth-heldout').click();
  await expect(wizard.getByTestId('wiz-synth-heldout-job')).toBeVisible();
  await expect(wizard.getByTestId('wiz-synth-heldout-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 120_000 });
  await expect(wizard.getByTestId('wiz-heldout')).not.toHaveValue(trainId);
  await expect(wizard.getByTestId('wiz-error-data.heldOutDatasetId')).toHaveCount(0);
  // The default style is named-entity lookups, kept off the facts of the training set picked above.
  const synthJobs = (await api<JobRecord[]>(page, 'jobs.list', {})).filter((j) => j.kind === 'synth');
  const heldJob = synthJobs.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1)!;
  expect(heldJob.params).toMatchObject({ kinds: [], anchorProb: 1, maxConstraints: 0, excludeDatasetIds: [trainId] });
  type Qas = { qas: { subgraph: { edges: string[] } }[] };
  const held = await api<Qas>(page, 'datasets.get', { id: (heldJob.result as { artefact: { id: string } }).artefact.id });
  const trainEdges = new Set((await api<Qas>(page, 'datasets.get', { id: trainId })).qas.flatMap((q) => q.subgraph.edges));
  expect(held.qas).toHaveLength(12);
  expect(held.qas.flatMap((q) => q.subgraph.edges).filter((e) => trainEdges.has(e))).toEqual([]);
  // ...but this run evaluates on the 40-question set made through the API.
  await wizard.getByTestId('wiz-heldout').selectOption(heldOutId);
  // Fresh RL questions, kept off both the training and the held-out facts; as many as there are, up to the count.
  await expect(wizard.getByTestId('wiz-rl-dataset')).toHaveValue(''); // none: RL would draw from the training set
  await wizard.getByTestId('wiz-synth-rl-count').fill('10');
  await wizard.getByTestId('wiz-synth-rl').click();
  await expect(wizard.getByTestId('wiz-synth-rl-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 120_000 });
  const rlJob = (await api<JobRecord[]>(page, 'jobs.list', {})).filter((j) => j.kind === 'synth').sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1)!;
  expect(rlJob.params).toMatchObject({ excludeDatasetIds: [trainId, heldOutId], allowFewer: true });
  const rlId = (rlJob.result as { artefact: { id: string } }).artefact.id;
  await expect(wizard.getByTestId('wiz-rl-dataset')).toHaveValue(rlId);
  const heldEdges = new Set((await api<Qas>(page, 'datasets.get', { id: heldOutId })).qas.flatMap((q) => q.subgraph.edges));
  const rlEdges = (await api<Qas>(page, 'datasets.get', { id: rlId })).qas.flatMap((q) => q.subgraph.edges);
  expect(rlEdges.length).toBeGreaterThan(0);
  expect(rlEdges.filter((e) => trainEdges.has(e) || heldEdges.has(e))).toEqual([]);
  await wizard.getByTestId('wiz-next').click();

  // ---------- wizard: model ----------
  await expect(wizard.getByTestId('wiz-model')).toBeVisible();
  await expect(wizard.getByTestId('wiz-model-blockSize')).toHaveValue('256');
  await expect(wizard.getByTestId('wiz-backends')).toContainText(/✓/);
  // The base model by default: its shape is fixed; a fresh model's preset is one choice away.
  await expect(wizard.getByTestId('wiz-init')).toHaveValue('base');
  await expect(wizard.getByTestId('wiz-preset-small')).toBeDisabled();
  await wizard.getByTestId('wiz-init').selectOption('scratch');
  await wizard.getByTestId('wiz-preset-small').check({ force: true });
  await expect(wizard).toContainText('wants a GPU');
  await page.screenshot({ path: `${SHOTS}/runs-wizard-model.png` });
  await wizard.getByTestId('wiz-preset-tiny').check({ force: true });
  await wizard.getByTestId('wiz-init').selectOption('base');
  await wizard.getByTestId('wiz-next').click();

  // ---------- wizard: training, with client-side validation ----------
  await expect(wizard.getByTestId('wiz-training')).toBeVisible();
  await wizard.getByTestId('wiz-sft-lr').fill('5');
  await expect(wizard.getByTestId('wiz-error-sft.lr')).toHaveText('SFT learning rate: must be at most 1');
  await wizard.getByTestId('wiz-eval-samples').fill('2.5');
  await expect(wizard.getByTestId('wiz-error-eval.samples')).toHaveText('evaluation samples per question: must be a whole number');
  await wizard.getByTestId('wiz-sft-steps').fill('20');
  await wizard.getByTestId('wiz-eval-every').fill('10');
  await wizard.getByTestId('wiz-eval-questions').fill('5');
  await wizard.getByTestId('wiz-checkpoint-every').fill('10');
  await expect(wizard.getByTestId('wiz-step-training')).toHaveClass(/bad/);
  await page.screenshot({ path: `${SHOTS}/runs-wizard.png` });
  await wizard.getByTestId('wiz-next').click();
  await expect(wizard.getByTestId('wiz-training')).toBeVisible(); // refused to move on
  await wizard.getByTestId('wiz-sft-lr').fill('0.002');
  await wizard.getByTestId('wiz-eval-samples').fill('1');
  await expect(wizard.getByTestId('wiz-error-sft.lr')).toHaveCount(0);
  await wizard.getByTestId('wiz-next').click();
  // The RL step: this run is SFT only (the default).
  await expect(wizard.getByTestId('wiz-rl')).toBeVisible();
  await expect(wizard.getByTestId('wiz-stage-sft')).toBeChecked();
  await wizard.getByTestId('wiz-next').click();

  // ---------- wizard: review, launch ----------
  await expect(wizard.getByTestId('wiz-review')).toBeVisible();
  const json = JSON.parse((await wizard.getByTestId('wiz-config-json').textContent()) ?? '{}') as Record<string, Record<string, unknown>>;
  expect(json.data).toEqual({ graphId, datasetId: trainId, heldOutDatasetId: heldOutId, rlDatasetId: rlId });
  expect(json.sft).toMatchObject({ steps: 20, lr: 0.002 });
  expect(json.eval).toMatchObject({ every: 10, questions: 5 });
  expect(json.model).toEqual({ base: 'bundled' });
  expect(json.tokenizer).toBeUndefined(); // the base model brings its tokenizer
  // The estimate is a warm-up measured on this machine for this config: SFT steps, a policy turn, rollouts.
  await expect(wizard.getByTestId('wiz-estimate')).toHaveAttribute('data-status', 'succeeded', { timeout: 120_000 });
  await expect(wizard.getByTestId('wiz-estimate-total')).toContainText(/≈ \d/);
  await expect(wizard.getByTestId('wiz-estimate')).toContainText('20 steps ×');
  await expect(wizard.getByTestId('wiz-estimate')).toContainText(/measured just now on (wasm|cpu|tensorflow)/);
  // Left empty, the run takes the name the placeholder shows.
  await expect(wizard.getByTestId('wiz-name')).toHaveAttribute('placeholder', 'base model SFT 20 steps, rng 1');
  await wizard.getByTestId('wiz-name').fill('e2e tiny 20 steps');
  await page.screenshot({ path: `${SHOTS}/runs-wizard-review.png` });

  // When main refuses anyway, the fields it names are marked in the wizard's words, never its raw message (the
  // wire answer is stubbed once here: every field main checks is also checked in the wizard, so a real refusal
  // needs a race). This one carries no issues list: the paths in the message are enough to mark the fields.
  await page.route('**/api/runs.start', (route) =>
    route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ ok: false, error: { code: 'bad_request', message: 'run config: sft.lr: Too big: expected number to be <=1' } }) }),
  );
  await wizard.getByTestId('wiz-launch').click();
  await expect(wizard.getByTestId('wiz-step-training')).toHaveClass(/bad/);
  await wizard.getByTestId('wiz-step-training').click();
  await expect(wizard.getByTestId('wiz-error-sft.lr')).toHaveText('SFT learning rate: refused by the lab core: check this value');
  await expect(wizard).not.toContainText('Too big');
  await expect(wizard).not.toContainText('sft.lr');
  await page.unroute('**/api/runs.start');
  // The browser logs the refused request itself; that one error is expected, nothing else is.
  expect(consoleErrors).toEqual([expect.stringContaining('400')]);
  consoleErrors.length = 0;
  await wizard.getByTestId('wiz-step-review').click();
  await wizard.getByTestId('wiz-launch').click();
  await expect(wizard).toHaveCount(0);

  // ---------- the dashboard updates live ----------
  const row = page.getByTestId('run-row').first();
  await expect(row).toContainText('e2e tiny 20 steps');
  made.firstRunId = (await row.getAttribute('data-run-id'))!;
  await expect(row.getByTestId('run-tick')).toBeChecked();
  const dash = page.getByTestId('run-dashboard');
  await expect(dash.getByTestId(/^dash-run-/)).toContainText('e2e tiny 20 steps');
  const loss = dash.getByTestId('dash-chart-loss');
  await expect(loss.locator('canvas')).toBeVisible();
  await expect.poll(() => points(loss), { timeout: 300_000 }).toBeGreaterThanOrEqual(3);
  const seen = await points(loss);
  // Still running and more points arrive (pushed by run.metrics events).
  await expect.poll(() => points(loss), { timeout: 120_000 }).toBeGreaterThan(seen);
  await expect(dash.getByTestId('dash-progress')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/runs-dashboard-live.png`, fullPage: false });

  await expect(row).toHaveAttribute('data-status', 'finished', { timeout: 300_000 });
  await expect(row.getByTestId('run-status')).toHaveText('finished');
  await expect(row.getByTestId('run-step')).toContainText('20');
  for (const m of ['sft/loss', 'val/loss', 'eval/pass@1']) {
    await expect(row.getByTestId(`run-metric-${m}`).getByTestId('last')).toHaveText(/^\d/);
    await expect(row.getByTestId(`run-metric-${m}`).getByTestId('best')).toHaveText(/^\d/);
  }
  await expect(row.getByTestId('run-cancel')).toHaveCount(0);
  await expect.poll(() => points(dash.getByTestId('dash-chart-eval/pass@1'))).toBe(2);
  await expect.poll(() => seriesPoints(loss, `${made.firstRunId}|sft/loss`)).toBe(20);
  await expect.poll(() => seriesPoints(loss, `${made.firstRunId}|val/loss`)).toBe(2);
  await expect(dash.getByTestId('dash-evals')).toContainText('step 20');

  // ---------- the scrubber drives every chart's cursor and the read-out ----------
  const scrubber = dash.getByTestId('dash-scrubber');
  await expect(scrubber).toHaveAttribute('max', '20');
  await scrubber.fill('10');
  await expect(dash.getByTestId('dash-scrub-step')).toHaveText('10');
  await expect(dash.getByTestId('dash-readout')).toContainText('at step 10');
  await expect(dash.getByTestId('readout-eval/pass@1').first()).toHaveText(/^\d/);
  await scrubber.fill('15');
  await expect(dash.getByTestId('dash-scrub-step')).toHaveText('15');
  await expect(dash.getByTestId('readout-val/loss').first()).toContainText('@10');
  await page.getByTestId('runs-table').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/runs-list.png` });

  // Settings: log-y and the time axis redraw without errors.
  await dash.getByTestId('dash-logy').check();
  await dash.getByTestId('dash-x-time').click();
  await dash.getByTestId('dash-x-step').click();
  await dash.getByTestId('dash-logy').uncheck();

  // ---------- an evaluation point opens its trajectories ----------
  const over = dash.getByTestId('dash-chart-eval/pass@1').locator('.u-over');
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
  await page.mouse.click(box.x + box.width - 4, box.y + box.height / 2);
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'trajectories');
  // The inspector opens that evaluation's trajectories: the last evaluation (step 20), one per held-out question.
  await expect(page.getByTestId('traj-set-picker')).toContainText('evaluation at step 20');
  await expect(page.getByTestId('traj-row')).toHaveCount(5);
  await page.getByTestId('traj-row').first().click();
  await expect(page.getByTestId('traj-eval')).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/runs-eval-trajectories.png' });
  await page.getByTestId('nav-runs').click();
  await expect(page.getByTestId('run-row').first()).toHaveAttribute('data-status', 'finished');

  expect(consoleErrors).toEqual([]);
});

test('a run started elsewhere appears; cancel, resume from its checkpoint, two runs overlaid', async ({ page }) => {
  test.setTimeout(600_000);
  expect(made.firstRunId).not.toBe('');
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/runs');
  await expect(page.getByTestId('run-row')).toHaveCount(1);

  // Started through the API (as the CLI or another window would): the table learns of it from job events.
  const started = await api<{ artefact: { id: string } }>(page, 'runs.start', {
    config: {
      name: 'e2e second run',
      data: { graphId: made.graphId, datasetId: made.trainId, heldOutDatasetId: made.heldOutId },
      model: { base: 'none', preset: 'tiny', blockSize: 384 },
      sft: { steps: 30, lr: 0.004 },
      eval: { every: 10, questions: 3 },
      checkpoint: { every: 4 },
    },
  });
  const id = started.artefact.id;
  const row = page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
  await expect(row).toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await row.getByTestId('run-tick').check();
  await page.locator(`[data-testid="run-row"][data-run-id="${made.firstRunId}"]`).getByTestId('run-tick').check();
  const dash = page.getByTestId('run-dashboard');
  const loss = dash.getByTestId('dash-chart-loss');
  await expect(dash.getByTestId('dash-config-diff')).toContainText('sft.lr');

  // Cancel once it is past its first checkpoint, then resume: it continues from the checkpoint, and the
  // steps it re-does replace the ones the dashboard already had (no duplicates).
  await expect.poll(() => seriesPoints(loss, `${id}|sft/loss`), { timeout: 300_000 }).toBeGreaterThanOrEqual(6);
  await row.getByTestId('run-cancel').click();
  await expect(row).toHaveAttribute('data-status', 'cancelled', { timeout: 60_000 });
  const before = await seriesPoints(loss, `${id}|sft/loss`);
  expect(before).toBeLessThan(30);
  await row.getByTestId('run-resume').click();
  await expect(row).toHaveAttribute('data-status', 'running');
  await expect(row).toHaveAttribute('data-status', 'finished', { timeout: 300_000 });
  await expect.poll(() => seriesPoints(loss, `${id}|sft/loss`)).toBe(30);
  await expect.poll(() => seriesPoints(loss, `${made.firstRunId}|sft/loss`)).toBe(20);
  await expect(row.getByTestId('run-step')).toContainText('30');
  await expect(dash.getByTestId('dash-scrubber')).toHaveAttribute('max', '30');
  await expect(dash.getByTestId('dash-readout').locator('tbody tr')).toHaveCount(2);

  await dash.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/runs-overlay.png` });

  // Checkpoints go on to the Compare section (the last of each selected run).
  await dash.getByTestId('dash-compare').click();
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'compare');
  await page.getByTestId('nav-runs').click();
  await expect(page.getByTestId('run-dashboard')).toBeVisible();

  // The chart settings and the runs charted persist across a reload (never data: the series load again).
  await dash.getByTestId('dash-smoothing').fill('0.8');
  await dash.getByTestId('dash-x-time').click();
  await page.reload();
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await expect(dash.getByTestId(/^dash-run-/)).toHaveCount(2);
  await page.getByTestId('run-row').first().getByTestId('run-name').click();
  await expect(page.getByTestId('dash-smoothing')).toHaveValue('0.8');
  await expect(page.getByTestId('dash-x-time')).toHaveClass(/on/);
  await expect.poll(() => points(page.getByTestId('dash-chart-loss'))).toBeGreaterThan(30);
  expect(consoleErrors).toEqual([]);
});

test('SFT continues from a checkpoint, from the wizard; a run whose context hides answers says so', async ({ page }) => {
  test.setTimeout(600_000);
  expect(made.firstRunId).not.toBe('');
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/runs');
  await page.getByTestId('runs-new').click();
  const wizard = page.getByTestId('run-wizard');
  await wizard.getByTestId('wiz-graph').selectOption(made.graphId);
  await wizard.getByTestId('wiz-dataset').selectOption(made.trainId);
  await wizard.getByTestId('wiz-heldout').selectOption(made.heldOutId);
  await wizard.getByTestId('wiz-next').click();

  // ---------- model: start from the first run's last checkpoint ----------
  const ckpt = `${made.firstRunId}/20`;
  await expect(wizard.getByTestId('wiz-init').locator(`option[value="${ckpt}"]`)).toHaveCount(1);
  await wizard.getByTestId('wiz-init').selectOption(ckpt);
  await expect(wizard.getByTestId('wiz-init-note')).toContainText('SFT continues from this checkpoint');
  await expect(wizard.getByTestId('wiz-preset-tiny')).toBeDisabled();
  await expect(wizard.getByTestId('wiz-model-blockSize')).toBeDisabled();
  await page.screenshot({ path: `${SHOTS}/runs-wizard-init.png` });
  await wizard.getByTestId('wiz-next').click();
  await wizard.getByTestId('wiz-sft-steps').fill('6');
  await wizard.getByTestId('wiz-eval-every').fill('6');
  await wizard.getByTestId('wiz-eval-questions').fill('3');
  await wizard.getByTestId('wiz-checkpoint-every').fill('6');
  await wizard.getByTestId('wiz-next').click();
  await wizard.getByTestId('wiz-next').click();

  // ---------- review: the checkpoint instead of a model and tokenizer; launch ----------
  const json = JSON.parse((await wizard.getByTestId('wiz-config-json').textContent()) ?? '{}') as Record<string, unknown>;
  expect(json).toMatchObject({ init: { checkpoint: ckpt }, sft: { steps: 6 } });
  expect(json).not.toHaveProperty('model');
  expect(json).not.toHaveProperty('tokenizer');
  await expect(wizard.getByTestId('wiz-stages')).toContainText(`checkpoint ${ckpt} → RFT data → SFT, 6 more steps`);
  // The default name says where it starts in words: the first run's name and step, as the service will name it.
  const firstName = (await api<{ artefact: { name: string } }>(page, 'runs.get', { id: made.firstRunId })).artefact.name;
  await expect(wizard.getByTestId('wiz-name')).toHaveAttribute('placeholder', `SFT 6 steps from ${firstName} (step 20), rng 1`);
  await wizard.getByTestId('wiz-launch').click();
  await expect(wizard).toHaveCount(0);
  const row = page.locator('[data-testid="run-row"]', { hasText: `from ${firstName} (step 20)` });
  await expect(row).toHaveAttribute('data-status', 'finished', { timeout: 300_000 });
  const id = (await row.getAttribute('data-run-id'))!;
  const detail = await api<{ checkpoints: Array<{ step: number }> }>(page, 'runs.get', { id });
  expect(detail.checkpoints.map((c) => c.step)).toEqual([6]);
  // It trained the checkpoint's weights: after 6 more steps its validation loss (the same held-back windows,
  // no batch noise) is below the first run's after 10, which a start from the base model would not reach.
  type Rec = { step: number; metrics: Record<string, number> };
  const valAt = async (runId: string, step: number): Promise<number> => (await api<Rec[]>(page, 'runs.metrics', { id: runId })).find((r) => r.step === step)!.metrics['val/loss']!;
  expect(await valAt(id, 6)).toBeLessThan(await valAt(made.firstRunId, 10));

  // ---------- the dashboard: the step-0 measure of how often the prompt window still shows the answer ----------
  const runs = await api<Array<{ artefact: { id: string }; metrics: Record<string, { last: number }> }>>(page, 'runs.list', {});
  const seen = (runId: string): number => runs.find((r) => r.artefact.id === runId)!.metrics['sft/answer_in_window']!.last;
  const dash = page.getByTestId('run-dashboard');
  await row.getByTestId('run-tick').check();
  await page.locator(`[data-testid="run-row"][data-run-id="${made.firstRunId}"]`).getByTestId('run-tick').check();
  // These obfuscated questions take several visits: at 256 positions the first pages fall out of the window.
  for (const runId of [id, made.firstRunId]) {
    expect(seen(runId)).toBeLessThan(0.95);
    await expect(dash.getByTestId(`dash-context-warning-${runId}`)).toContainText(`In ${Math.round(100 * (1 - seen(runId)))}% of the RFT answer turns`);
  }
  // The second run (384 positions) sees more of its answers; it is not ticked, so it shows no line.
  await expect(dash.getByTestId(/^dash-context-warning-/)).toHaveCount(2);
  await page.screenshot({ path: `${SHOTS}/runs-context-warning.png` });
  expect(consoleErrors).toEqual([]);
});
