// Two models served by a real OpenAI-compatible server (`transformers serve` with two tiny random-weight Llamas,
// tests/support/llm-server.ts) compared end to end in Debian Chromium against the real `sailor serve`: an
// endpoint saved in Compare → Endpoints and tested (models list, one completion, latency), both ticked in the
// new-comparison form with a third, the lab's base model behind `sailor policy serve`; the comparison's
// question-by-question table; a comparison stopped and resumed; the rollout form's picker; then episodes in the inspector: the chat layout, each
// turn's token counts, latency and tokens/s, and the log-probability heat strip (transformers serve returns no
// log-probabilities; the lab's own server does).
import { expect, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComparisonView, Endpoint, JobRecord } from '../../main/lab/contract';
import { servedLab, shooter, watchConsole } from './lab';
import { llmServerMissing, startLlmServer, type LlmServer } from '../support/llm-server';
import { startPolicyServer, type PolicyServer } from '../support/policy-server';

const { server, api, runJob } = servedLab();
const shot = shooter('endpoints', process.env.SAILOR_SHOTS_DIR);
let llm: LlmServer;
let lab: PolicyServer;

// Without .venv-llm (tests/setup-python.sh makes it; npm test's pretest runs that) there is no server to talk to.
const missing = llmServerMissing();
if (missing) console.log(`web.endpoints.spec.ts skipped: ${missing}`);
test.skip(missing !== undefined, missing);

test.beforeAll(async () => {
  test.setTimeout(900_000);
  [llm, lab] = await Promise.all([startLlmServer({ timeoutMs: 800_000 }), startPolicyServer('base')]);
});
test.afterAll(async () => {
  await Promise.all([llm?.stop(), lab?.stop()]);
});

test('compare two served models: endpoint test, Compare table, chat layout and turn figures', async ({ page }) => {
  test.setTimeout(900_000);
  const consoleErrors = watchConsole(page);
  const graphId = await runJob(page, 'kg.build', { rng: 7, maxEdges: 200 });
  const datasetId = await runJob(page, 'synth', { graphId, count: 4, rng: 1 });
  // One endpoint through the API; the other through the form, as a user saves it.
  await api<Endpoint>(page, 'endpoints.save', { name: 'tiny A', baseUrl: llm.baseUrl, model: llm.models[0], maxTokens: 16, inFlight: 2 });

  await page.goto(server.url + '#/compare');
  await page.getByTestId('ep-toggle').click();
  const panel = page.getByTestId('ep-panel');
  await expect(panel.getByTestId('ep-row')).toHaveCount(1); // the list is in: the form below it stays where it is
  await panel.getByTestId('ep-name').fill('tiny B');
  await panel.getByTestId('ep-url').fill(llm.baseUrl);
  await panel.getByTestId('ep-model').fill(llm.models[1]);
  await panel.getByTestId('ep-key-env').fill('SAILOR_E2E_UNUSED_KEY');
  await panel.getByTestId('ep-save').click();
  await expect(panel.getByTestId('ep-row')).toHaveCount(2);
  // The key variable is not set for `sailor serve`: the test says so, naming the variable (never a value).
  const rowB = panel.getByTestId('ep-row').nth(1);
  await rowB.getByTestId('ep-test').click();
  await expect(panel.getByTestId('ep-test-error')).toContainText('SAILOR_E2E_UNUSED_KEY is not set', { timeout: 30_000 });
  await panel.getByTestId('ep-row').nth(0).getByTestId('ep-test').click();
  const result = panel.locator('[data-testid="ep-test-result"][data-ok="true"]');
  await expect(result.getByTestId('ep-test-models')).toContainText('models (', { timeout: 300_000 });
  await expect(result.getByTestId('ep-test-completion')).toContainText('one completion (');
  await shot(page, 'panel');
  // B without a key: saved again with no key variable.
  const saved = await api<Endpoint[]>(page, 'endpoints.list');
  await api<Endpoint>(page, 'endpoints.save', { id: saved[1]!.id, name: 'tiny B', baseUrl: llm.baseUrl, model: llm.models[1], maxTokens: 16, inFlight: 2 });
  // The third: the lab's own base model, served with per-token log-probabilities.
  const eps = [...saved, await api<Endpoint>(page, 'endpoints.save', { name: 'lab base model', baseUrl: lab.baseUrl, model: lab.model, inFlight: 2 })];

  // ---------- the policy picker: the three endpoints ticked, the questions chosen ----------
  await page.reload();
  const form = page.getByTestId('cmp-new'); // open by itself while there is no comparison yet
  await expect(form).toBeVisible();
  for (const e of eps) await form.getByTestId(`cmp-ckpt-endpoint:${e.id}`).check();
  await expect(form.getByTestId('cmp-picked-item')).toHaveCount(3);
  await expect(form.getByTestId('cmp-picked-item').nth(0)).toContainText('tiny A');
  await form.getByTestId('cmp-dataset').selectOption(datasetId);
  await form.getByTestId('cmp-questions').fill('2');
  await shot(page, 'form');
  await form.getByTestId('cmp-start').click();
  // The result opens by itself when the job succeeds; a failed job shows its message at once.
  const open = page.getByTestId('cmp-open');
  const failed = page.locator('[data-testid="cmp-job"][data-status="failed"]');
  await expect(open.or(failed)).toBeVisible({ timeout: 600_000 });
  if (await failed.count()) throw new Error(`comparison failed: ${await failed.innerText()}`);
  const view = await api<ComparisonView>(page, 'comparisons.get', { id: (await open.getAttribute('data-id'))! });
  expect(view.checkpoints.map((c) => c.ref)).toEqual(eps.map((e) => `endpoint:${e.id}`));

  // ---------- the question-by-question table ----------
  await expect(page.getByTestId('cmp-table').getByTestId('cmp-col-A')).toContainText('tiny A');
  await expect(page.getByTestId('cmp-table').getByTestId('cmp-col-B')).toContainText('tiny B');
  await expect(page.getByTestId('cmp-q-row')).toHaveCount(2);
  await page.getByTestId('cmp-outcomes').scrollIntoViewIfNeeded();
  await shot(page, 'compare');

  // ---------- a comparison stopped (once it has played an episode) and resumed from Compare ----------
  const params = { checkpoints: eps.slice(0, 2).map((e) => `endpoint:${e.id}`), datasetId, questions: 2, samples: 3, temperature: 0 };
  const stopped = await api<JobRecord>(page, 'jobs.start', { kind: 'compare', params });
  const journal = join(server.home, 'jobs', stopped.id, 'played.jsonl');
  await expect.poll(() => (existsSync(journal) ? readFileSync(journal, 'utf8').trim().split('\n').length : 0), { timeout: 300_000 }).toBeGreaterThan(1);
  await api(page, 'jobs.cancel', { id: stopped.id });
  await expect.poll(async () => (await api<JobRecord>(page, 'jobs.get', { id: stopped.id })).status, { timeout: 60_000 }).toBe('cancelled');
  await page.reload();
  const banner = page.getByTestId('cmp-stopped');
  await expect(banner).toHaveAttribute('data-id', stopped.id);
  await expect(banner).toContainText('tiny A vs tiny B was stopped at');
  await shot(page, 'stopped');
  await banner.getByTestId('cmp-resume').click();
  await expect(open).not.toHaveAttribute('data-id', view.artefact.id, { timeout: 600_000 }); // the resumed comparison opens by itself
  const resumed = await api<ComparisonView>(page, 'comparisons.get', { id: (await open.getAttribute('data-id'))! });
  expect(resumed.artefact.info.params).toMatchObject({ resumeOf: stopped.id });
  expect(resumed.artefact.info.resumed!.kept).toBeGreaterThan(0);
  await expect(page.getByTestId('cmp-resumed')).toContainText(`resumed: ${resumed.artefact.info.resumed!.kept} of 12 episodes kept`);
  await expect(page.getByTestId('cmp-stopped')).toHaveCount(0);
  await shot(page, 'resumed');

  // ---------- the rollout form's policy picker offers the endpoints by name ----------
  await page.goto(server.url + '#/trajectories');
  await page.getByTestId('rollout-toggle').click();
  const rollout = page.getByTestId('rollout-form');
  await rollout.getByTestId('rollout-policy-kind').selectOption('endpoint');
  await expect(rollout.getByTestId('rollout-policy-endpoint').locator('option')).toHaveText(['tiny A', 'tiny B', 'lab base model']);
  await expect(rollout.getByTestId('rollout-policy')).toHaveAttribute('data-policy', `endpoint:${eps[0]!.id}`);
  await shot(page, 'rollout-picker');
  await page.getByTestId('rollout-toggle').click();

  // ---------- the inspector: episodes as conversations, with their turns' figures and token strip ----------
  const detail = page.getByTestId('traj-detail');
  const chat = detail.getByTestId('chat-layout');
  // tiny A (transformers serve): the chat layout and each turn's figures, no log-probabilities to draw.
  await page.getByTestId('traj-set-picker').selectOption(view.checkpoints[0]!.setId);
  await page.getByTestId('traj-row').first().click();
  await expect(detail.getByTestId('view-chat')).toHaveClass(/on/);
  await expect(chat.locator('[data-testid="chat-message"][data-role="system"]')).toHaveCount(1);
  await expect(chat.locator('[data-testid="chat-message"][data-role="assistant"]').first()).toBeVisible();
  await expect(chat.getByTestId('turn-line').first()).toContainText(/prompt \+ \d+ generated tokens · .* tokens\/s/);
  await expect(chat.getByTestId('token-strip')).toHaveCount(0);
  // The lab's base model (sailor policy serve): each turn's tokens as a heat strip of their log-probabilities.
  await page.getByTestId('traj-set-picker').selectOption(view.checkpoints[2]!.setId);
  await page.getByTestId('traj-row').first().click();
  await expect(detail.getByTestId('view-chat')).toHaveClass(/on/);
  await expect(chat.getByTestId('token-strip').first().getByTestId('token').first()).toBeVisible();
  await shot(page, 'inspector');
  await detail.getByTestId('view-steps').click();
  await expect(detail.getByTestId('step').first().getByTestId('token-strip')).toBeVisible();
  await expect(detail.getByTestId('step').first().getByTestId('turn-line')).toContainText('generated tokens');
  expect(consoleErrors).toEqual([]);
});
