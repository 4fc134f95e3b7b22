// Agentic RL in Debian Chromium against the real `sailor serve`: a graph and two datasets made through the
// API, then in the UI: the wizard's RL stage (validation from the contract's schema, the review), a tiny
// real SFT + RL run in a worker, the RL charts filling from its metrics, the group view of a step (a strip
// of reward cells per question, advantages, batch status, the histogram) following the scrubber, a cell
// opening its trajectory, and a point of a chart at an RL step opening that step's rollouts in the inspector.
import { expect, test, type Locator } from '@playwright/test';
import type { RunDetail } from '../../main/lab/contract';
import { SHOTS, clickLastPoint, fillAll, servedLab, watchConsole } from './lab';

const { server, api, runJob } = servedLab();

const points = async (cell: Locator): Promise<number> => Number(await cell.getAttribute('data-points'));

/** Tiny settings: 12 SFT steps, then 4 RL steps of 2 questions x G 4 (32 rollouts), on 2 cores in about a minute. */
const SFT_STEPS = 12;
const RL_STEPS = 4;
const G = 4;
const QUESTIONS = 2;

test('the RL stage: wizard, a live SFT + RL run, RL charts, the group view, click-through to rollouts', async ({ page }) => {
  test.setTimeout(900_000);
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/runs');

  // ---------- data through the API ----------
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 400 });
  const trainId = await runJob(page, 'synth', { graphId, count: 120, rng: 1 });
  const heldOutId = await runJob(page, 'synth', { graphId, count: 12, rng: 2 });

  // ---------- the wizard: data, model, training ----------
  await page.getByTestId('runs-new').click();
  const wizard = page.getByTestId('run-wizard');
  await wizard.getByTestId('wiz-graph').selectOption(graphId);
  await wizard.getByTestId('wiz-dataset').selectOption(trainId);
  await wizard.getByTestId('wiz-heldout').selectOption(heldOutId);
  await wizard.getByTestId('wiz-next').click();
  await expect(wizard.getByTestId('wiz-model')).toBeVisible();
  await wizard.getByTestId('wiz-next').click();
  await expect(wizard.getByTestId('wiz-training')).toBeVisible();
  await fillAll(wizard, { 'wiz-sft-steps': String(SFT_STEPS), 'wiz-eval-every': String(SFT_STEPS), 'wiz-eval-questions': '3', 'wiz-checkpoint-every': String(SFT_STEPS) });
  await wizard.getByTestId('wiz-next').click();

  // ---------- the wizard: the RL stage ----------
  const rl = wizard.getByTestId('wiz-rl');
  await expect(rl).toBeVisible();
  await expect(wizard.getByTestId('wiz-stage-sft')).toBeChecked();
  await wizard.getByTestId('wiz-stage-sft+rl').check({ force: true });
  // RL-only needs a checkpoint; there is none yet, and the picker says so.
  await wizard.getByTestId('wiz-stage-rl').check({ force: true });
  await expect(wizard.getByTestId('wiz-rl-checkpoint')).toContainText('no checkpoints yet');
  await wizard.getByTestId('wiz-stage-sft+rl').check({ force: true });
  await expect(wizard.getByTestId('wiz-rl-checkpoint')).toHaveCount(0);
  // The schema's defaults, and its limits in the wizard's words.
  await expect(wizard.getByTestId('wiz-rl-algorithm')).toHaveValue('dupo');
  await expect(wizard.getByTestId('wiz-rl-groupSize')).toHaveValue('8');
  await wizard.getByTestId('wiz-rl-groupSize').fill('1');
  await expect(wizard.getByTestId('wiz-error-rl.groupSize')).toHaveText('RL group size (G): must be at least 2');
  await wizard.getByTestId('wiz-rl-reward-answer').fill('0.8');
  await expect(wizard.getByTestId('wiz-note-rl.reward.answer')).toContainText('add up to 0.9');
  await wizard.getByTestId('wiz-rl-reward-answer').fill('0.9');
  await wizard.getByTestId('wiz-next').click();
  await expect(rl).toBeVisible(); // refused to move on
  await expect(wizard.getByTestId('wiz-step-rl')).toHaveClass(/bad/);
  // Staleness only means something for asynchronous rollouts.
  await expect(wizard.getByTestId('wiz-rl-maxStaleness')).toBeDisabled();
  await wizard.getByTestId('wiz-rl-mode-async').click();
  await expect(wizard.getByTestId('wiz-rl-maxStaleness')).toBeEnabled();
  await wizard.getByTestId('wiz-rl-mode-sync').click();
  await fillAll(wizard, {
    'wiz-rl-groupSize': String(G),
    'wiz-rl-steps': String(RL_STEPS),
    'wiz-rl-batchQuestions': String(QUESTIONS),
    'wiz-rl-evalEvery': String(RL_STEPS),
    'wiz-rl-checkpointEvery': String(RL_STEPS),
  });
  // The starting policy's too-easy filter doubles the rollouts: off for a quick run.
  await wizard.getByTestId('wiz-rl-dropTooEasy').uncheck();
  await expect(wizard.getByTestId('wiz-error-rl.groupSize')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/rl-wizard.png` });
  await wizard.getByTestId('wiz-next').click();

  // ---------- review: the stages, the rl section, the measured estimate ----------
  await expect(wizard.getByTestId('wiz-review')).toBeVisible();
  await expect(wizard.getByTestId('wiz-stages')).toContainText(`SFT, ${SFT_STEPS} steps → RL (DUPO, sync), ${RL_STEPS} steps of ${QUESTIONS} questions × G ${G}`);
  // The measured estimate covers both stages.
  await expect(wizard.getByTestId('wiz-estimate')).toHaveAttribute('data-status', 'succeeded', { timeout: 120_000 });
  await expect(wizard.getByTestId('wiz-estimate-rl')).toContainText(/\d/);
  await expect(wizard.getByTestId('wiz-estimate')).toContainText(`${RL_STEPS} steps × ${QUESTIONS * G} rollouts`);
  const json = JSON.parse((await wizard.getByTestId('wiz-config-json').textContent()) ?? '{}') as Record<string, Record<string, unknown>>;
  expect(json.rl).toMatchObject({ algorithm: 'dupo', steps: RL_STEPS, groupSize: G, batchQuestions: QUESTIONS, mode: 'sync', dropTooEasy: false, reward: { format: 0.1, answer: 0.9 } });
  expect(json.init).toBeUndefined();
  await wizard.getByTestId('wiz-name').fill('e2e tiny SFT + DUPO');
  await wizard.getByTestId('wiz-launch').click();
  await expect(wizard).toHaveCount(0);

  // ---------- the run: RL charts fill live ----------
  const row = page.getByTestId('run-row').first();
  await expect(row).toContainText('e2e tiny SFT + DUPO');
  const runId = (await row.getAttribute('data-run-id'))!;
  const dash = page.getByTestId('run-dashboard');
  const rlSection = dash.getByTestId('dash-rl');
  await expect(rlSection).toBeVisible({ timeout: 600_000 });
  const reward = dash.getByTestId('dash-chart-rl-reward');
  await expect.poll(() => points(reward), { timeout: 600_000 }).toBeGreaterThanOrEqual(3); // mean, format, answer of the first RL step
  await expect(row).toHaveAttribute('data-status', 'finished', { timeout: 600_000 });
  await expect(row.getByTestId('run-step')).toContainText(String(SFT_STEPS + RL_STEPS));

  // Every RL chart of what a synchronous DUPO step writes has one point per RL step.
  const perStep: Record<string, number> = {
    'rl-reward': 3 * RL_STEPS,
    'rl-reward-std': RL_STEPS,
    'rl-tool-calls': RL_STEPS,
    'rl-response-tokens': RL_STEPS,
    'rl-turns': RL_STEPS,
    'rl-batch': 2 * RL_STEPS,
    'rl-tokens-per-s': RL_STEPS,
    'rl-timing': 2 * RL_STEPS,
  };
  for (const [id, n] of Object.entries(perStep)) await expect.poll(() => points(dash.getByTestId(`dash-chart-${id}`)), { message: id }).toBe(n);
  // The update's charts: a step whose groups all had zero std skips its update (no actor/* record).
  const updated = await points(dash.getByTestId('dash-chart-rl-grad-norm'));
  expect(updated).toBeLessThanOrEqual(RL_STEPS);
  await expect.poll(() => points(dash.getByTestId('dash-chart-rl-pg-loss'))).toBe(updated);
  // Held-out pass@1: after SFT and after the last RL step.
  await expect.poll(() => points(dash.getByTestId('dash-chart-rl-pass1'))).toBe(2);
  await expect(dash.getByTestId('dash-chart-rl-staleness')).toContainText('synchronous RL');
  await expect(dash.getByTestId('dash-chart-loss')).toBeVisible();
  await expect(dash.getByTestId('dash-readout')).toContainText('reward/mean');
  await rlSection.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/rl-dashboard.png` });

  // ---------- the third walk (issue 45, item 9): RL's own axis, the selection kept, SFT end against RL end ----------
  // The RL section counts RL steps from the SFT end: the SFT end's evaluation at 0, the last RL step's at RL_STEPS.
  const passSeries = (): Promise<string | null> => dash.getByTestId('dash-chart-rl-pass1').getAttribute('data-series');
  await expect(dash.getByTestId('dash-rl-from')).toContainText(`run step ${SFT_STEPS} is RL step 0`);
  await expect(dash.getByTestId('dash-rl-axis-rl')).toHaveClass(/on/);
  await page.screenshot({ path: `${SHOTS}/rl-dashboard-rl-axis.png` });
  await dash.getByTestId('dash-rl-axis-run').click();
  await expect(dash.getByTestId('dash-rl-from')).toContainText(`from step ${SFT_STEPS + 1}`);
  expect(await passSeries()).toBe(`${runId}|eval/pass@1:2`);
  await dash.getByTestId('dash-rl-axis-rl').click();
  // A reload keeps the runs charted (and the axis chosen).
  await page.reload();
  await expect(dash.getByTestId(`dash-run-${runId}`)).toBeVisible();
  await expect(dash.getByTestId('dash-rl-axis-rl')).toHaveClass(/on/);
  // One run with both stages: Compare gets its SFT end and its RL end.
  await expect(dash.getByTestId('dash-compare')).toHaveText(`compare the SFT end (step ${SFT_STEPS}) with the RL end (step ${SFT_STEPS + RL_STEPS}) →`);

  // ---------- the group view: the last RL step, then the scrubber moves it ----------
  const detail = await api<RunDetail>(page, 'runs.get', { id: runId });
  const rlSteps = Array.from({ length: RL_STEPS }, (_, i) => SFT_STEPS + 1 + i);
  expect(detail.rlSteps).toEqual(rlSteps);
  const groups = dash.getByTestId('rl-group-view');
  await expect(groups).toHaveAttribute('data-step', String(SFT_STEPS + RL_STEPS));
  await expect(groups.getByTestId('rl-group')).toHaveCount(QUESTIONS);
  await expect(groups.getByTestId('rl-cell')).toHaveCount(QUESTIONS * G);
  for (const g of await groups.getByTestId('rl-group').all()) {
    await expect(g.getByTestId('rl-cell')).toHaveCount(G);
    await expect(g.getByTestId('rl-status')).toHaveText(/^(kept|dropped|duplicated ×\d+)$/);
  }
  await expect(groups.getByTestId('rl-plan')).toContainText('dupo');
  // The histogram of the advantages the update used, or (a tiny policy's groups are often all wrong) the
  // note that no rollout went into an update at this step.
  const hist = groups.getByTestId('rl-adv-hist');
  if (Number(await hist.getAttribute('data-total')) > 0) await expect(hist.getByTestId('rl-hist-bar')).toHaveCount(17);
  else await expect(hist.getByTestId('rl-hist-empty')).toBeVisible();
  await dash.getByTestId('dash-scrubber').fill(String(SFT_STEPS + 2));
  await expect(groups).toHaveAttribute('data-step', String(SFT_STEPS + 2));
  await expect(groups.getByTestId('rl-cell')).toHaveCount(QUESTIONS * G);
  await groups.getByTestId('rl-step-next').click();
  await expect(dash.getByTestId('dash-scrub-step')).toHaveText(String(SFT_STEPS + 3));
  await expect(groups).toHaveAttribute('data-step', String(SFT_STEPS + 3));
  await groups.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/rl-group-view.png` });

  // A cell opens its trajectory in the inspector, with its group, advantage and policy version.
  const cell = groups.getByTestId('rl-cell').nth(1);
  const trajId = (await cell.getAttribute('data-traj-id'))!;
  expect(trajId).toMatch(new RegExp(`^${SFT_STEPS + 3}/.+/1$`));
  await cell.click();
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'trajectories');
  await expect(page.getByTestId('traj-set-picker')).toContainText(`RL rollouts at step ${SFT_STEPS + 3}`);
  await expect(page.getByTestId('traj-detail')).toHaveAttribute('data-traj-id', trajId);
  await expect(page.getByTestId('traj-rl')).toContainText(`group ${SFT_STEPS + 3}/`);
  await expect(page.getByTestId('traj-rl-advantage')).toHaveText(/^-?\d/);

  // ---------- a chart point at an RL step opens that step's rollouts ----------
  await page.getByTestId('nav-runs').click();
  await clickLastPoint(page, dash.getByTestId('dash-chart-rl-reward-std'));
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'trajectories');
  await expect(page.getByTestId('traj-set-picker')).toContainText(`RL rollouts at step ${SFT_STEPS + RL_STEPS}`);
  await expect(page.getByTestId('traj-rl-step')).toContainText(`RL step ${SFT_STEPS + RL_STEPS} · dupo`);
  await expect(page.getByTestId('traj-row')).toHaveCount(QUESTIONS * G);
  await expect(page.getByTestId('traj-adv')).toHaveCount(QUESTIONS * G);
  await page.getByTestId('traj-row').first().click();
  await expect(page.getByTestId('traj-rl')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/rl-click-through.png` });

  // An evaluation point still opens the evaluation (the last one, after the last RL step).
  await page.getByTestId('nav-runs').click();
  await clickLastPoint(page, dash.getByTestId('dash-chart-rl-pass1'));
  await expect(page.getByTestId('traj-set-picker')).toContainText(`evaluation at step ${SFT_STEPS + RL_STEPS}`);
  await expect(page.getByTestId('traj-row')).toHaveCount(3);

  // ---------- RL only, from this run's last checkpoint: its name, its RL evaluation interval, no SFT loss chart ----------
  // The step-0 data table first (the SFT run's), at the app's size and narrower: no overflow, names on one line.
  await page.getByTestId('nav-runs').click();
  const once = dash.getByTestId('dash-once');
  await once.scrollIntoViewIfNeeded();
  await expect(once.locator('td.num').first()).not.toHaveText(/\d\.\d{6,}/);
  for (const width of [1400, 1100]) {
    await page.setViewportSize({ width, height: 860 });
    const card = (await once.boundingBox())!;
    expect(card.x + card.width).toBeLessThanOrEqual(width);
    const nameCell = once.locator('td.run-col').first();
    expect((await nameCell.boundingBox())!.height).toBeLessThan(30); // one line
    await once.screenshot({ path: `${SHOTS}/sft-data-table-${width}.png` });
  }
  await page.setViewportSize({ width: 1400, height: 860 });
  const rlOnly = await api<{ artefact: { id: string; name: string } }>(page, 'runs.start', {
    config: { ...detail.config, name: undefined, init: { checkpoint: `${runId}/last` }, sft: { steps: 0 }, rl: { ...(detail.config.rl as object), steps: 40, evalEvery: 20, checkpointEvery: 20 } },
  });
  expect(rlOnly.artefact.name).toBe(`DUPO 40 steps from e2e tiny SFT + DUPO (step ${SFT_STEPS + RL_STEPS}), rng 1`);
  await page.reload();
  await page.getByTestId('run-row').filter({ hasText: rlOnly.artefact.name }).getByTestId('run-name').click();
  await expect(dash.getByTestId(`dash-run-${rlOnly.artefact.id}`)).toContainText(rlOnly.artefact.name);
  await expect(dash.getByTestId('dash-chart-loss')).toHaveCount(0);
  await expect(dash.getByTestId('dash-chart-actor/lr')).toBeVisible();
  await expect(dash.getByTestId('dash-chart-eval/pass@1').or(dash.getByTestId('dash-chart-rl-pass1')).first()).toContainText('no evaluation yet: every 20 RL steps', { timeout: 180_000 });
  await expect(dash.getByTestId('dash-evals-none')).toContainText('every 20 RL steps');
  await page.screenshot({ path: `${SHOTS}/rl-only-dashboard.png` });
  await api(page, 'runs.cancel', { id: rlOnly.artefact.id });

  expect(consoleErrors).toEqual([]);
});
