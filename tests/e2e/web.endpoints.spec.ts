// Two models served by a real OpenAI-compatible server (`transformers serve` with two tiny random-weight Llamas,
// tests/support/llm-server.ts) compared end to end in Debian Chromium against the real `sailor serve`: an
// endpoint saved in Compare → Endpoints and tested (models list, one completion, latency), both ticked in the
// new-comparison form, the comparison's question-by-question table, then an episode in the inspector: its
// chat layout and each turn's token counts, latency and tokens/s (transformers serve returns no log-probabilities,
// so the heat strip, drawn where a server returns them, is not seen here).
import { expect, test } from '@playwright/test';
import type { ComparisonView, Endpoint } from '../../main/lab/contract';
import { servedLab, shooter, watchConsole } from './lab';
import { startLlmServer, type LlmServer } from '../support/llm-server';

const { server, api, runJob } = servedLab();
const shot = shooter('endpoints', process.env.SAILOR_SHOTS_DIR);
let llm: LlmServer;

// Written at the end of a session and not yet seen passing: on until then only with SAILOR_E2E_ENDPOINTS=1.
test.skip(!process.env.SAILOR_E2E_ENDPOINTS, 'the endpoints browser test is not yet verified: set SAILOR_E2E_ENDPOINTS=1 to run it');

test.beforeAll(async () => {
  test.setTimeout(900_000);
  llm = await startLlmServer({ timeoutMs: 800_000 });
});
test.afterAll(async () => {
  await llm?.stop();
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
  const eps = await api<Endpoint[]>(page, 'endpoints.list');
  await api<Endpoint>(page, 'endpoints.save', { id: eps[1]!.id, name: 'tiny B', baseUrl: llm.baseUrl, model: llm.models[1], maxTokens: 16, inFlight: 2 });

  // ---------- the policy picker: both endpoints ticked, the questions chosen ----------
  await page.reload();
  const form = page.getByTestId('cmp-new'); // open by itself while there is no comparison yet
  await expect(form).toBeVisible();
  for (const e of eps) await form.getByTestId(`cmp-ckpt-endpoint:${e.id}`).check();
  await expect(form.getByTestId('cmp-picked-item')).toHaveCount(2);
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

  // ---------- the inspector: one of A's episodes as a conversation, with its turns' figures and token strip ----------
  await page.goto(server.url + '#/trajectories');
  await page.getByTestId('traj-set-picker').selectOption(view.checkpoints[0]!.setId);
  await page.getByTestId('traj-row').first().click();
  const detail = page.getByTestId('traj-detail');
  await expect(detail.getByTestId('view-chat')).toHaveClass(/on/);
  const chat = detail.getByTestId('chat-layout');
  await expect(chat.locator('[data-testid="chat-message"][data-role="system"]')).toHaveCount(1);
  await expect(chat.locator('[data-testid="chat-message"][data-role="assistant"]').first()).toBeVisible();
  await expect(chat.getByTestId('turn-line').first()).toContainText(/prompt \+ \d+ generated tokens · .* tokens\/s/);
  await shot(page, 'inspector');
  await detail.getByTestId('view-steps').click();
  // transformers serve returns no log-probabilities (vLLM and SGLang do): the steps show each turn's figures alone.
  await expect(detail.getByTestId('step').first().getByTestId('turn-line')).toContainText('generated tokens');
  expect(consoleErrors).toEqual([]);
});
