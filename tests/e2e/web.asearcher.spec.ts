// The Datasets view's generator choice in Chromium against the real `sailor serve`: pick the ASearcher
// generator, see a bad steps value named beside its field, synthesise, and read the generator's own figures
// in the dataset header.
import { expect, test } from '@playwright/test';
import { SHOTS, jobSucceeded, servedLab, watchConsole } from './lab';

const { server, runJob } = servedLab();

test('the ASearcher generator from the Datasets form, with its statistics in the header', async ({ page }) => {
  test.setTimeout(300_000);
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/datasets');
  await runJob(page, 'kg.build', { rng: 7, maxEdges: 400 });
  await page.reload();

  await page.getByTestId('synth-generator').selectOption('asearcher');
  await expect(page.getByTestId('synth-kinds-toggle')).toHaveCount(0); // obfuscation kinds belong to the subgraph generator
  await page.getByTestId('synth-steps').fill('12');
  await page.getByTestId('synth-start').click();
  await expect(page.getByTestId('synth-error-steps')).toHaveText('steps: must be at most 8');
  await expect(page.getByTestId('synth-job')).toHaveCount(0);
  await page.getByTestId('synth-steps').fill('3');
  await page.getByTestId('synth-count').fill('40');
  await page.screenshot({ path: `${SHOTS}/asearcher-form.png` });
  await page.getByTestId('synth-start').click();
  await jobSucceeded(page.getByTestId('synth-job'));

  const header = page.getByTestId('dataset-stats');
  await expect(header.getByTestId('stats-asearcher')).toContainText(/seed lookups, \d+ facts injected, \d+ details fuzzed/, { timeout: 30_000 });
  await expect(header.getByTestId('stats-step-rejections')).toBeVisible();
  await expect(header.getByTestId('stats-coverage')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/asearcher-dataset.png`, fullPage: true });
  expect(consoleErrors).toEqual([]);
});
