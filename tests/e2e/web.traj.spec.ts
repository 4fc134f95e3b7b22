// The Trajectories inspector in Debian Chromium against the real `sailor serve`: a graph and a dataset made
// through the API, a rollout (n = 2) started from the UI, then the list, its filters, one trajectory's
// step timeline with a folded tool response, the exact model text, links out, and two attempts side by
// side. A second server holds a 5,000-trajectory set to check the list stays virtualised.
import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunDetail, TrajSetView } from '../../main/lab/contract';
import { serve } from './serve';
import { SHOTS, servedLab, watchConsole } from './lab';

const { server, api, runJob } = servedLab();

test('roll out from the UI, filter, open a trajectory, fold and model text, links, side by side', async ({ page }) => {
  test.setTimeout(300_000);
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/trajectories');
  const content = page.locator('main.content');
  await expect(content).toHaveAttribute('data-section', 'trajectories');
  await expect(page.getByTestId('traj-empty')).toBeVisible();
  await expect(page.getByTestId('rollout-form')).toBeVisible();

  // ---------- a graph and a dataset through the API ----------
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 400 });
  const datasetId = await runJob(page, 'synth', { graphId: graphId, count: 30, rng: 1 });

  // ---------- a rollout from the UI ----------
  const form = page.getByTestId('rollout-form');
  await expect(form.getByTestId('rollout-dataset')).toHaveValue(datasetId); // the new dataset arrived by itself
  await expect(form.getByTestId('rollout-graph')).toHaveValue(graphId); // and brought its graph
  await form.getByTestId('rollout-n').fill('2');
  // No policy is chosen for the user: Run without one is refused with a message naming the field.
  await expect(form.getByTestId('rollout-policy')).toHaveAttribute('data-policy', '');
  await form.getByTestId('rollout-start').click();
  await expect(form.getByTestId('rollout-error-policy')).toHaveText('policy: choose a policy: the expert (oracle), the base model, an untrained model or a checkpoint');
  await expect(form.getByTestId('rollout-policy-kind')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('rollout-job')).toHaveCount(0); // nothing started
  await page.screenshot({ path: `${SHOTS}/traj-rollout-policy-refused.png` });
  // The picker offers the expert, the base model, an untrained model, a checkpoint and a saved model endpoint, in words.
  await expect(form.getByTestId('rollout-policy-kind').locator('option:not([disabled])')).toHaveText(['expert (oracle)', 'base model', 'untrained model', 'a checkpoint…', 'a model endpoint…']);
  await form.getByTestId('rollout-policy-kind').selectOption('oracle');
  await expect(form.getByTestId('rollout-error-policy')).toBeHidden(); // the error clears once fixed
  await expect(form.getByTestId('rollout-policy')).toHaveAttribute('data-policy', 'oracle');
  await form.getByTestId('rollout-start').click();
  await expect(page.getByTestId('rollout-job')).toHaveAttribute('data-status', /running|succeeded/);
  await expect(page.getByTestId('rollout-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 120_000 });

  // ---------- the list ----------
  const list = page.getByTestId('traj-list');
  await expect(list).toHaveAttribute('data-rows', '60', { timeout: 30_000 });
  await expect(page.getByTestId('traj-count')).toHaveText('60 of 60');
  await expect(page.getByTestId('traj-eval')).toContainText('pass@1');
  await expect(page.getByTestId('traj-eval')).toContainText('pass@2');
  const rows = page.getByTestId('traj-row');
  await expect(rows.first()).toBeVisible();
  // The set is labelled by policy and dataset in words, not by ids.
  await expect(page.getByTestId('traj-set-title')).toHaveText(/^expert \(oracle\) on \d+ obfuscated questions.* × 2$/);
  await expect(page.getByTestId('traj-set-policy')).toHaveText('expert (oracle) · n 2');
  await page.getByTestId('rollout-toggle').click(); // hide the form again: more room for the list
  await expect(page.getByTestId('rollout-form')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/traj-list.png` });

  // ---------- filters ----------
  const [setArt] = await api<Array<{ id: string }>>(page, 'trajectories.list');
  const set = await api<TrajSetView>(page, 'trajectories.get', { id: setArt!.id });
  const terms = new Map<string, number>();
  for (const t of set.trajectories) terms.set(t.termination, (terms.get(t.termination) ?? 0) + 1);
  const [term, termCount] = [...terms].sort((a, b) => b[1] - a[1])[0]!;
  await page.getByTestId('traj-filter-termination').selectOption(term);
  await expect(page.getByTestId('traj-count')).toHaveText(`${termCount} of 60`);
  for (const t of await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-termination')))) expect(t).toBe(term);

  const unsolved = set.trajectories.filter((t) => t.termination === term && t.reward.answer < 1).length;
  await page.getByTestId('traj-filter-solved').selectOption('unsolved');
  await expect(page.getByTestId('traj-count')).toHaveText(`${unsolved} of 60`);
  await page.getByTestId('traj-filter-clear').click();
  await expect(page.getByTestId('traj-count')).toHaveText('60 of 60');

  // A question whose two attempts act differently (fall back to the first question).
  const byQa = new Map<string, typeof set.trajectories>();
  for (const t of set.trajectories) byQa.set(t.qa_id, [...(byQa.get(t.qa_id) ?? []), t]);
  const pair =
    [...byQa.values()].find((g) => g.length === 2 && (g[0]!.tool_calls !== g[1]!.tool_calls || g[0]!.reward.answer !== g[1]!.reward.answer)) ??
    [...byQa.values()][0]!;
  const qaId = pair[0]!.qa_id;
  await page.getByTestId('traj-filter-text').fill(qaId);
  await expect(page.getByTestId('traj-count')).toHaveText('2 of 60');

  // ---------- one trajectory ----------
  await page.locator(`[data-testid="traj-row"][data-traj-id="${pair[0]!.id}"]`).click();
  const detail = page.getByTestId('traj-detail');
  await expect(detail).toHaveAttribute('data-traj-id', pair[0]!.id);
  await expect(detail.getByTestId('traj-question')).toHaveText(set.questions[qaId]!.question);
  await expect(detail.getByTestId('reward-breakdown')).toContainText('total');
  const steps = detail.getByTestId('step');
  await expect(steps).toHaveCount(pair[0]!.turns);
  await expect(steps.last()).toHaveAttribute('data-action', 'answer');
  await expect(steps.last().getByTestId('step-answer')).toContainText('gold');
  const folded = detail.locator('[data-testid="tool-response"]:has([data-testid="fold-toggle"])').first();
  await expect(folded).toHaveAttribute('data-open', 'false');
  const foldedHeight = (await folded.boundingBox())!.height;
  await folded.getByTestId('fold-toggle').click();
  await expect(folded).toHaveAttribute('data-open', 'true');
  expect((await folded.boundingBox())!.height).toBeGreaterThan(foldedHeight);
  await page.locator('.traj-view .detail').evaluate((el) => el.scrollTo({ top: 0 }));
  await page.screenshot({ path: `${SHOTS}/traj-open.png` });

  // ---------- the exact text the model saw ----------
  await detail.getByTestId('view-model-text').click();
  const text = detail.getByTestId('model-text');
  await expect(text).toBeVisible();
  await expect(text).toContainText(`Question: ${set.questions[qaId]!.question}`);
  await expect(text.locator('.seg[data-kind="prompt"]')).toHaveCount(1);
  await expect(text.locator('.seg[data-kind="observation"]')).toHaveCount(pair[0]!.tool_calls);
  await expect(text.locator('.seg[data-kind="observation"]').first()).toHaveAttribute('title', /masked out of the loss/);
  await expect(text.locator('.seg[data-kind="think"]')).toHaveCount(pair[0]!.turns);
  await text.evaluate((el) => el.scrollIntoView({ block: 'start' })); // legend, folded prompt, then the first steps
  await page.screenshot({ path: `${SHOTS}/traj-model-text.png` });
  // The system prompt is folded (the question stays visible); unfolded it declares the tools.
  await expect(text).not.toContainText('<tools>');
  await text.getByTestId('prompt-unfold').click();
  await expect(text).toContainText('<tools>');
  await detail.getByTestId('view-steps').click();
  await expect(detail.getByTestId('step-timeline')).toBeVisible();

  // ---------- links out: the answer node in the Graph explorer, the QA in Datasets ----------
  await detail.getByTestId('link-node').click();
  await expect(content).toHaveAttribute('data-section', 'graph');
  await page.getByTestId('nav-trajectories').click();
  await expect(page.getByTestId('traj-detail')).toHaveAttribute('data-traj-id', pair[0]!.id); // state kept
  await page.getByTestId('link-qa').click();
  await expect(content).toHaveAttribute('data-section', 'datasets');
  await expect(page.getByTestId('qa-detail')).toHaveAttribute('data-qa-id', qaId);
  await page.getByTestId('nav-trajectories').click();

  // ---------- side by side ----------
  // A second set on the same dataset (another seed, one attempt each) offers the question from there too.
  const otherId = await runJob(page, 'rollout', { datasetId: datasetId, graphId: graphId, policy: 'oracle', n: 1, rng: 5, name: 'second seed' });
  await expect(page.getByTestId('traj-set-picker').locator('option')).toHaveCount(2);
  await expect(page.getByTestId('traj-set-picker')).toHaveValue(set.artefact.id); // the open set stays open
  await expect(page.getByTestId('open-compare')).toContainText('other sets');
  await page.getByTestId('open-compare').click();
  const sbs = page.getByTestId('side-by-side');
  await expect(sbs).toBeVisible();
  await expect(sbs.getByTestId('compare-pick-left')).toHaveValue(`${set.artefact.id}\n${pair[0]!.id}`);
  await expect(sbs.getByTestId('compare-pick-right')).toHaveValue(`${set.artefact.id}\n${pair[1]!.id}`);
  await expect(sbs.getByTestId('compare-row')).toHaveCount(Math.max(pair[0]!.turns, pair[1]!.turns));
  await expect(sbs.getByTestId('compare-summary')).toBeVisible();
  await expect(sbs.getByTestId('compare-left').getByTestId('reward-breakdown')).toBeVisible();
  await expect(sbs.getByTestId('compare-right').getByTestId('reward-breakdown')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/traj-side-by-side.png` });
  // Swapping sides through the picker re-aligns.
  await sbs.getByTestId('compare-pick-left').selectOption(`${set.artefact.id}\n${pair[1]!.id}`);
  await expect(sbs.getByTestId('compare-summary')).toHaveText('same actions at every step');
  // The same question from the other set.
  const otherSet = await api<TrajSetView>(page, 'trajectories.get', { id: otherId });
  const fromOther = otherSet.trajectories.find((t) => t.qa_id === qaId)!;
  await expect(sbs.getByTestId('compare-pick-right').locator('option', { hasText: 'second seed' })).toHaveCount(1);
  await sbs.getByTestId('compare-pick-right').selectOption(`${otherId}\n${fromOther.id}`);
  await expect(sbs.getByTestId('compare-row')).toHaveCount(Math.max(pair[1]!.turns, fromOther.turns));
  await expect(sbs.getByTestId('compare-right')).toContainText(`prediction ${fromOther.prediction}`);
  await sbs.getByTestId('compare-back').click();
  await expect(page.getByTestId('traj-list')).toBeVisible();

  expect(consoleErrors).toEqual([]);
});

test('a run\'s evaluation rollouts are listed under the run; the picker offers its checkpoints; datasets say their role; the status bar follows the run', async ({ page }) => {
  test.setTimeout(600_000);
  const consoleErrors = watchConsole(page);
  // ---------- a graph, training and held-out questions, and a short real run with one evaluation ----------
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 300 });
  const lookups = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000, minEdges: 1, maxEdges: 1 };
  const datasetId = await runJob(page, 'synth', { graphId, count: 40, rng: 1, ...lookups });
  const heldOutDatasetId = await runJob(page, 'synth', { graphId, count: 10, rng: 2, ...lookups, excludeDatasetIds: [datasetId] });
  const STEPS = 30;
  const started = await api<{ artefact: { id: string; name: string } }>(page, 'runs.start', {
    config: {
      data: { graphId, datasetId, heldOutDatasetId },
      backend: 'wasm',
      tokenizer: { vocabSize: 512 },
      model: { base: 'none', preset: 'tiny', blockSize: 128 },
      sft: { steps: STEPS, batchSize: 4, warmupSteps: 5 },
      eval: { every: STEPS, questions: 3 },
      checkpoint: { every: STEPS },
      env: { maxToolCalls: 12 },
    },
  });
  const runId = started.artefact.id;
  const runName = started.artefact.name;

  // ---------- mid-run: the status bar's percentage is the share of the run's steps done ----------
  await page.goto(server.url + '#/jobs');
  const bar = page.getByTestId('status-jobs');
  await expect(bar).toHaveAttribute('title', /^SFT step \d+ of 30/, { timeout: 300_000 });
  const shown = await bar.evaluate((el) => ({ text: el.textContent ?? '', title: el.getAttribute('title') ?? '' }));
  const step = Number(/^SFT step (\d+) of 30/.exec(shown.title)![1]);
  expect(shown.text).toContain(`${Math.round((100 * step) / STEPS)}%`);
  await page.screenshot({ path: `${SHOTS}/status-bar-mid-run.png` });

  let run: RunDetail | null = null;
  await expect
    .poll(async () => (run = await api<RunDetail>(page, 'runs.get', { id: runId })).status, { timeout: 400_000, intervals: [1000, 2000] })
    .toMatch(/finished|failed|cancelled|interrupted/);
  expect(run!.error ?? '').toBe('');
  expect(run!.evals.map((e) => e.step)).toEqual([STEPS]);

  // ---------- the Trajectories page lists the run's evaluation (and RFT data) under the run ----------
  await page.getByTestId('nav-trajectories').click();
  const picker = page.getByTestId('traj-set-picker');
  const group = picker.locator(`optgroup[label="Run ${runName}"]`);
  await expect(group.locator('option')).toHaveText([
    `${runName} · RFT data: the expert demonstrations SFT trained on`,
    `${runName} · evaluation at step ${STEPS} · held-out questions`,
  ]);
  await picker.selectOption(`eval:${runId}:${STEPS}`);
  await expect(page.getByTestId('traj-set-title')).toHaveText(`${runName} · evaluation at step ${STEPS} · held-out questions`);
  await expect(page.getByTestId('traj-set-policy')).toHaveText(`${runName} · step ${STEPS} · n 1`);
  await expect(page.getByTestId('traj-set-dataset')).toHaveText('on 10 one-hop lookups · held-out · graph rng 7, 300 edges');
  await expect(page.getByTestId('traj-list')).toHaveAttribute('data-rows', '3');
  await expect(page.getByTestId('traj-row').first().locator('.c-pol')).toHaveText(`${runName} · step ${STEPS}`); // the policy in words
  // Opened, an evaluation trajectory shows its held-out question.
  await page.getByTestId('traj-row').first().click();
  await expect(page.getByTestId('traj-question')).not.toHaveText('');
  await page.getByTestId('traj-detail').getByRole('button', { name: 'Close' }).click();
  // The picker as a list, for the screenshot (a closed <select> shows one line).
  await picker.evaluate((el) => el.setAttribute('size', '9'));
  await page.screenshot({ path: `${SHOTS}/traj-sets-grouped.png` });
  await picker.evaluate((el) => el.removeAttribute('size'));

  // ---------- the policy picker: a checkpoint by run and step ----------
  if (!(await page.getByTestId('rollout-form').isVisible())) await page.getByTestId('rollout-toggle').click();
  const form = page.getByTestId('rollout-form');
  await form.getByTestId('rollout-policy-kind').selectOption('ckpt');
  await form.getByTestId('rollout-policy-run').selectOption(runId);
  await expect(form.getByTestId('rollout-policy-step').locator('option')).toHaveText([`step ${STEPS}`]);
  await expect(form.getByTestId('rollout-policy')).toHaveAttribute('data-policy', `ckpt:${runId}/${STEPS}`);
  // Datasets in the form say their role and style.
  await expect(form.getByTestId('rollout-dataset').locator(`option[value="${heldOutDatasetId}"]`)).toHaveText('10 one-hop lookups · held-out');
  await page.screenshot({ path: `${SHOTS}/traj-rollout-policy-picker.png` });

  // ---------- Datasets: role and style in the list ----------
  await page.getByTestId('nav-datasets').click();
  const dsPicker = page.getByTestId('dataset-picker');
  await expect(dsPicker.locator(`option[value="${datasetId}"]`)).toHaveText('40 one-hop lookups · training · graph rng 7, 300 edges');
  await expect(dsPicker.locator(`option[value="${heldOutDatasetId}"]`)).toHaveText('10 one-hop lookups · held-out · graph rng 7, 300 edges');
  await dsPicker.selectOption(heldOutDatasetId);
  await expect(page.getByTestId('dataset-role')).toHaveText('held-out questions');
  await dsPicker.evaluate((el) => el.setAttribute('size', '5'));
  await page.screenshot({ path: `${SHOTS}/datasets-labels.png` });
  await dsPicker.evaluate((el) => el.removeAttribute('size'));
  expect(consoleErrors).toEqual([]);
});

test('a 5,000-trajectory set stays virtualised: few rows in the DOM, scrolls to the end, keys move', async ({ page }) => {
  test.setTimeout(120_000);
  const home = mkdtempSync(join(tmpdir(), 'sailor-e2e-big-'));
  const N = 5000;
  const terms = ['answer', 'answer', 'answer', 'max_steps', 'format_error'] as const;
  const lines = [JSON.stringify({ format: 'sailor.traj/1', policy: 'oracle', n: 4 })];
  for (let i = 0; i < N; i++) {
    const tools = i % 7;
    const answer = i % 3 === 0 ? 1 : 0;
    lines.push(
      JSON.stringify({
        id: `qa-${String(Math.floor(i / 4)).padStart(6, '0')}/${i % 4}`,
        qa_id: `qa-${String(Math.floor(i / 4)).padStart(6, '0')}`,
        policy: i % 2 ? 'oracle' : 'llm:test',
        steps: [
          ...Array.from({ length: tools }, (_, k) => ({ think: `step ${k}`, action: { name: 'search', arguments: { query: [`q${k}`] } }, observation: `result ${k}` })),
          { think: 'done', action: { name: 'answer', arguments: { answer: `A${i}` } } },
        ],
        prediction: `A${i}`,
        termination: terms[i % terms.length],
        reward: { format: 1, answer, total: 0.1 + 0.9 * answer },
        tool_calls: tools,
        tokens: { generated: 40 * (tools + 1), observation: 10 * tools },
      }),
    );
  }
  mkdirSync(join(home, 'trajectories'), { recursive: true });
  writeFileSync(join(home, 'trajectories', 'big.jsonl'), lines.join('\n') + '\n');
  const store = {
    format: 'sailor.store',
    version: 1,
    trajectories: [{ id: 'big', name: '5,000 synthetic trajectories', path: 'trajectories/big.jsonl', createdAt: new Date().toISOString(), info: {} }],
  };
  writeFileSync(join(home, 'db.json'), JSON.stringify(store));
  const big = await serve(home);
  try {
    const consoleErrors = watchConsole(page);
    await page.goto(big.url + '#/trajectories');
    const list = page.getByTestId('traj-list');
    await expect(list).toHaveAttribute('data-rows', String(N), { timeout: 30_000 });
    const rows = page.getByTestId('traj-row');
    await expect(rows.first()).toBeVisible();
    const inDom = await rows.count();
    expect(inDom).toBeGreaterThan(5);
    expect(inDom).toBeLessThan(80);

    // Scroll through the whole list in 40 frames; the DOM stays small and the last row arrives.
    const ms = await list.evaluate(async (el) => {
      // In the page; this file is type-checked without the DOM library.
      const frame = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number }).requestAnimationFrame;
      const t0 = performance.now();
      for (let i = 1; i <= 40; i++) {
        el.scrollTop = (el.scrollHeight * i) / 40;
        await new Promise<void>((r) => frame(() => r()));
      }
      return performance.now() - t0;
    });
    console.log(`scrolled through ${N} rows in 40 frames: ${ms.toFixed(0)} ms`);
    await expect(page.locator('[data-testid="traj-row"][data-traj-id="qa-001249/3"]')).toBeVisible();
    expect(await rows.count()).toBeLessThan(80);

    // Filters over 5,000 rows, then the keyboard.
    await page.getByTestId('traj-filter-termination').selectOption('max_steps');
    await expect(page.getByTestId('traj-count')).toHaveText('1,000 of 5,000');
    await page.getByTestId('traj-filter-min-tools').fill('6');
    await expect(page.getByTestId('traj-count')).toHaveText(/^\d{2,3} of 5,000$/);
    await rows.first().click();
    await expect(page.getByTestId('traj-detail')).toBeVisible();
    const first = await rows.first().getAttribute('data-traj-id');
    await list.press('ArrowDown');
    await expect(page.getByTestId('traj-detail')).not.toHaveAttribute('data-traj-id', first!);
    await page.getByTestId('sort-reward').click();
    await expect(rows.first().locator('.c-r')).toContainText('1.00');
    expect(consoleErrors).toEqual([]);
  } finally {
    await big.stop();
  }
});
