// The Compare section in Debian Chromium against the real `sailor serve`: a graph, two datasets and a
// short real training run (checkpoints at steps 10 and 20) made through the API; then in the UI: the
// new-comparison form (checkpoints grouped by run, the held-out set by default, inline validation, a
// server error), a comparison of step 10 vs step 20 on 3 held-out questions with its job's progress,
// the checkpoints side by side, the questions grouped by outcome, one question's two trajectories
// aligned step by step, and the past comparison reopened.
import { expect, test } from '@playwright/test';
import { FAILURE_CLASSES, FAILURE_TEXT, failuresOf, type ComparisonView, type RunDetail, type TrajDetail } from '../../main/lab/contract';
import { SHOTS, servedLab, watchConsole } from './lab';
import { TINY_RUN } from '../support/tiny-run';

const { server, api, runJob } = servedLab();

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

test('compare two checkpoints of a real run: form, job, side by side, outcomes, aligned trajectories, reopen', async ({ page }) => {
  test.setTimeout(600_000);
  const consoleErrors = watchConsole(page);

  // ---------- data through the API: a graph, two datasets, a short real training run ----------
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 300 });
  const datasetId = await runJob(page, 'synth', { graphId, count: 40, rng: 1 });
  const heldOutDatasetId = await runJob(page, 'synth', { graphId, count: 10, rng: 2 });
  const started = await api<{ artefact: { id: string } }>(page, 'runs.start', {
    config: {
      ...TINY_RUN,
      data: { graphId, datasetId, heldOutDatasetId },
      sft: { steps: 20, batchSize: 4, warmupSteps: 5 },
      eval: { every: 10, questions: 3 },
      checkpoint: { every: 10 },
    },
  });
  const runId = started.artefact.id;
  let run: RunDetail | null = null;
  await expect
    .poll(async () => (run = await api<RunDetail>(page, 'runs.get', { id: runId })).status, { timeout: 400_000, intervals: [1000, 2000] })
    .toMatch(/finished|failed|cancelled|interrupted/);
  expect(run!.error ?? '').toBe('');
  expect(run!.status).toBe('finished');
  expect(run!.checkpoints.map((c) => c.ref)).toEqual([`${runId}/10`, `${runId}/20`]);

  // ---------- the dashboard: each evaluation's failure breakdown, the last one's in words ----------
  await page.goto(server.url + '#/runs');
  await page.getByTestId('run-row').filter({ hasText: run!.artefact.name }).getByTestId('run-name').click();
  const evals = page.getByTestId('dash-evals');
  for (const step of [10, 20]) await expect(evals.getByTestId(`dash-eval-${step}`).getByTestId('failure-bar')).toHaveAttribute('data-total', '3');
  const last = failuresOf(run!.evals.find((e) => e.step === 20)!.summary)!;
  const legend = evals.getByTestId('dash-failures');
  await expect(legend).toContainText('step 20, why episodes failed');
  for (const c of FAILURE_CLASSES) if (last[c] > 0) await expect(legend.getByTestId('failure-legend')).toContainText(`${FAILURE_TEXT[c].label} ${last[c]}`);
  await evals.scrollIntoViewIfNeeded();
  await evals.screenshot({ path: `${SHOTS}/compare-dashboard-failures.png` });

  // ---------- the empty section: the form is open, the run's checkpoints grouped under it ----------
  await page.goto(server.url + '#/compare');
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'compare');
  await expect(page.locator('main.content h1')).toHaveText('Compare checkpoints');
  await expect(page.getByTestId('cmp-empty')).toBeVisible();
  const form = page.getByTestId('cmp-new');
  await expect(form).toBeVisible();
  const group = form.locator(`[data-testid="cmp-run"][data-run-id="${runId}"]`);
  await expect(group).toContainText(run!.artefact.name);
  await expect(group.locator('input[type="checkbox"]')).toHaveCount(2);
  // The dataset defaults to the run's held-out questions.
  await expect(form.getByTestId('cmp-dataset')).toHaveValue(heldOutDatasetId);

  // ---------- inline validation ----------
  await expect(form.getByTestId('cmp-err-checkpoints')).toContainText('at least 2 checkpoints (0 picked)');
  await form.getByTestId('cmp-start').click();
  await expect(form.getByTestId('cmp-err-checkpoints')).toHaveClass(/error/);
  await form.getByTestId(`cmp-ckpt-${runId}/10`).check();
  await expect(form.getByTestId('cmp-err-checkpoints')).toContainText('(1 picked)');
  await form.getByTestId(`cmp-ckpt-${runId}/20`).check();
  await expect(form.getByTestId('cmp-err-checkpoints')).toHaveCount(0);
  const picked = form.getByTestId('cmp-picked-item');
  await expect(picked).toHaveCount(2);
  await expect(picked.nth(0)).toHaveAttribute('data-ref', `${runId}/10`);
  await expect(picked.nth(0)).toContainText('A');
  await expect(picked.nth(1)).toHaveAttribute('data-ref', `${runId}/20`);
  await form.getByTestId('cmp-questions').fill('0');
  await expect(form.getByTestId('cmp-err-questions')).toHaveText('questions: must be at least 1');
  await form.getByTestId('cmp-questions').fill('3');
  await expect(form.getByTestId('cmp-err-questions')).toHaveCount(0);
  await form.getByTestId('cmp-name').fill('bad/name');
  await expect(form.getByTestId('cmp-err-name')).toBeVisible();
  await form.getByTestId('cmp-name').fill('');

  // ---------- a refusal from main marks the field it names, in the form's words, never the raw message ----------
  await page.route('**/api/jobs.start', (route) =>
    route.fulfill({ json: { ok: false, error: { code: 'bad_request', message: 'jobs.start: invalid params: params.datasetId: simulated' } } }),
  );
  await form.getByTestId('cmp-start').click();
  await expect(form.getByTestId('cmp-err-datasetId')).toHaveText('questions from: refused by the lab core: check this value');
  await expect(form).not.toContainText(/invalid params|params\.datasetId|datasetId: simulated/);
  await page.unroute('**/api/jobs.start');

  // ---------- the comparison job, its progress, the result opening by itself ----------
  await form.getByTestId('cmp-start').click();
  await expect(page.getByTestId('cmp-job')).toHaveAttribute('data-status', /running|succeeded/);
  const open = page.getByTestId('cmp-open');
  await expect(open).toBeVisible({ timeout: 300_000 });
  const compId = (await open.getAttribute('data-id'))!;
  const view = await api<ComparisonView>(page, 'comparisons.get', { id: compId });
  expect(view.checkpoints.map((c) => c.ref)).toEqual([`${runId}/10`, `${runId}/20`]);
  expect(view.questions).toHaveLength(3);
  await expect(page.getByTestId('cmp-new')).toHaveCount(0); // the form closed once its job finished

  // ---------- the checkpoints side by side ----------
  const table = page.getByTestId('cmp-table');
  await expect(table).toHaveAttribute('data-columns', '2');
  await expect(table.getByTestId('cmp-col-A')).toContainText('step 10');
  await expect(table.getByTestId('cmp-col-B')).toContainText('step 20');
  const rowOf = (key: string) => table.locator(`[data-testid="cmp-row"][data-key="${key}"]`);
  for (const key of ['pass@1', 'pass@k', 'solved', 'reward', 'tool_calls', 'turns', 'tokens']) await expect(rowOf(key)).toHaveCount(1);
  await expect(rowOf('pass@k').locator('td').first()).toContainText('pass@k (k = 1)'); // k = samples
  const ev = (i: number) => view.checkpoints[i]!.eval as { 'pass@1': number; all: { turns_mean: number; tokens_mean: number; termination: Record<string, number> } };
  const passCells = rowOf('pass@1').getByTestId('cmp-cell');
  await expect(passCells.nth(0)).toContainText(pct(ev(0)['pass@1']));
  await expect(passCells.nth(1)).toContainText(pct(ev(1)['pass@1']));
  await expect(rowOf('turns').getByTestId('cmp-cell').nth(1)).toContainText(ev(1).all.turns_mean.toFixed(1));
  // Each termination of either checkpoint has a row of bars.
  const terms = new Set([...Object.keys(ev(0).all.termination), ...Object.keys(ev(1).all.termination)]);
  for (const t of terms) await expect(rowOf(`termination/${t}`).locator('.track')).toHaveCount(2);
  // The best of a row is marked when the two differ, and only then.
  const rewards = [view.checkpoints[0]!.counts['reward/mean'] as number, view.checkpoints[1]!.counts['reward/mean'] as number];
  const rewardBest = await rowOf('reward').getByTestId('cmp-cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-best')));
  if (rewards[0] === rewards[1]) expect(rewardBest).toEqual(['false', 'false']);
  else expect(rewardBest).toEqual(rewards[0]! > rewards[1]! ? ['true', 'false'] : ['false', 'true']);
  // The failure breakdown: a row of bars per class; each checkpoint's shares cover its 3 episodes.
  for (const c of FAILURE_CLASSES) await expect(rowOf(`failures/${c}`).locator('.track')).toHaveCount(2);
  const failures = (i: number) => (view.checkpoints[i]!.eval as { failures: Record<string, number> }).failures;
  for (const i of [0, 1]) expect(FAILURE_CLASSES.reduce((a, c) => a + failures(i)[c]!, 0)).toBe(3);
  await expect(rowOf('failures/solved').getByTestId('cmp-cell').nth(1)).toContainText(pct(failures(1).solved! / 3));
  await table.locator('tbody').last().screenshot({ path: `${SHOTS}/compare-failures.png` });
  // Tokens have no direction (neither more nor fewer is better): never marked.
  expect(await rowOf('tokens').getByTestId('cmp-cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-best')))).toEqual(['false', 'false']);

  // ---------- the questions by outcome: the groups add up to the 3 questions ----------
  const outcomes = page.getByTestId('cmp-outcomes');
  await expect(outcomes.getByTestId('cmp-chip-all')).toHaveAttribute('data-count', '3');
  const counts = { a_only: 0, b_only: 0, both: 0, neither: 0 };
  for (const o of ['a_only', 'b_only', 'both', 'neither'] as const) counts[o] = Number(await outcomes.getByTestId(`cmp-chip-${o}`).getAttribute('data-count'));
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(3);
  const solved = (i: number, q: ComparisonView['questions'][number]): boolean => q.results[i]!.correct > 0;
  const expected = { a_only: 0, b_only: 0, both: 0, neither: 0 };
  for (const q of view.questions) expected[solved(0, q) && solved(1, q) ? 'both' : solved(0, q) ? 'a_only' : solved(1, q) ? 'b_only' : 'neither']++;
  expect(counts).toEqual(expected);
  expect(counts).toEqual(view.artefact.info.outcomes);
  // A against B at a glance: the same groups in words, with the sign test on the questions they disagree on.
  const summary = page.getByTestId('cmp-summary');
  await expect(summary).toContainText(`A only ${counts.a_only}`);
  await expect(summary).toContainText(`neither ${counts.neither}`);
  await expect(summary.getByTestId('cmp-sign-test')).toContainText(counts.a_only + counts.b_only ? /McNemar p [=<] / : 'McNemar: nothing to test');
  // Each pass@1 with its 95% interval, in the summary and the table.
  await expect(summary.getByTestId('cmp-rates')).toHaveText(/^A \d+\.\d % \(\d+–\d+\) · B \d+\.\d % \(\d+–\d+\)$/);
  await expect(rowOf('pass@1').getByTestId('cmp-ci')).toHaveCount(2);
  await expect(summary).not.toContainText('Best in');
  // Tool calls, turns and tokens have no direction: never marked best, their changes never coloured.
  for (const key of ['tool_calls', 'turns', 'tokens']) {
    await expect(rowOf(key).locator('td.best, .delta.good, .delta.bad')).toHaveCount(0);
    await expect(rowOf(key).locator('.dir')).toHaveCount(0);
  }
  // The run's own evaluation protocol: each checkpoint scores the pass@1 the dashboard showed at its step.
  await expect(page.getByTestId('cmp-protocol-diff')).toContainText("The dashboard's evaluation protocol");
  for (const [i, step] of [10, 20].entries()) {
    const dashboard = run!.evals.find((e) => e.step === step)!.summary['eval/pass@1']!;
    expect(ev(i)['pass@1']).toBeCloseTo(dashboard, 12);
  }
  await summary.screenshot({ path: `${SHOTS}/compare-summary.png` });
  const qRows = outcomes.getByTestId('cmp-q-row');
  await expect(qRows).toHaveCount(3);
  await expect(qRows.first().getByTestId('cmp-q-a')).toHaveText(`${view.questions[0]!.results[0]!.correct}/${view.questions[0]!.results[0]!.n}`);
  await expect(qRows.first()).toContainText(view.questionText[view.questions[0]!.qa_id]!.slice(0, 20));
  // A chip filters to its group.
  const [group0, n0] = Object.entries(counts).find(([, n]) => n > 0)!;
  await outcomes.getByTestId(`cmp-chip-${group0}`).click();
  await expect(qRows).toHaveCount(n0);
  await expect(outcomes.getByTestId('cmp-q-count')).toHaveText(`${n0} of 3 questions`);
  await outcomes.getByTestId('cmp-chip-all').click();
  await expect(qRows).toHaveCount(3);
  await page.locator('main.content').evaluate((el) => el.scrollTo({ top: 0 }));
  await page.screenshot({ path: `${SHOTS}/compare-table.png` });

  // ---------- one question, A and B aligned step by step ----------
  const q = view.questions[0]!;
  await qRows.first().click();
  const question = page.getByTestId('cmp-question');
  await expect(question).toHaveAttribute('data-qa-id', q.qa_id);
  const sbs = question.getByTestId('side-by-side');
  await expect(sbs.getByTestId('compare-pick-left')).toHaveValue(`${view.checkpoints[0]!.setId}\n${q.results[0]!.trajIds[0]}`);
  await expect(sbs.getByTestId('compare-pick-right')).toHaveValue(`${view.checkpoints[1]!.setId}\n${q.results[1]!.trajIds[0]}`);
  const [left, right] = await Promise.all(
    [0, 1].map((i) => api<TrajDetail>(page, 'trajectories.one', { id: view.checkpoints[i]!.setId, trajId: q.results[i]!.trajIds[0]! })),
  );
  await expect(sbs.getByTestId('compare-row')).toHaveCount(Math.max(left!.trajectory.steps.length, right!.trajectory.steps.length));
  await expect(sbs.getByTestId('compare-left').getByTestId('reward-breakdown')).toBeVisible();
  await expect(sbs.getByTestId('compare-right').getByTestId('reward-breakdown')).toBeVisible();
  await expect(sbs.getByTestId('compare-summary')).toBeVisible();
  await expect(sbs.getByTestId('compare-pick-left').locator('option')).toHaveCount(2); // this question's trajectory in A's and B's sets
  await page.screenshot({ path: `${SHOTS}/compare-question.png` });
  // The next question, then back to the list.
  await question.getByTestId('cmp-q-next').click();
  await expect(question).toHaveAttribute('data-qa-id', view.questions[1]!.qa_id);
  await sbs.getByTestId('compare-back').click();
  await expect(qRows).toHaveCount(3);

  // ---------- leave and come back: the comparison is still open; the past list reopens it ----------
  await page.getByTestId('nav-runs').click();
  await page.getByTestId('nav-compare').click();
  await expect(page.getByTestId('cmp-open')).toHaveAttribute('data-id', compId);
  await page.reload();
  await expect(page.getByTestId('cmp-open')).toHaveAttribute('data-id', compId); // the newest opens by itself
  await page.getByTestId('cmp-list-toggle').click();
  const listRow = page.locator(`[data-testid="cmp-list-row"][data-id="${compId}"]`);
  await expect(listRow).toContainText(`${run!.artefact.name} · step 10`);
  await expect(listRow).toContainText(`${run!.artefact.name} · step 20`);
  await expect(listRow).toContainText(`A only ${counts.a_only} · B only ${counts.b_only} · both ${counts.both} · neither ${counts.neither}`);
  await listRow.click();
  await expect(page.getByTestId('cmp-list')).toHaveCount(0);
  await expect(page.getByTestId('cmp-open')).toHaveAttribute('data-id', compId);
  await expect(page.getByTestId('cmp-table')).toBeVisible();

  expect(consoleErrors).toEqual([]);
});
