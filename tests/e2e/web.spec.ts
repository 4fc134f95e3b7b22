// The real UI in Debian Chromium against the real `sailor serve`: token gate, every section, the Jobs page
// following a job started through the API (the page has no developer demo panel).
import { expect, test } from '@playwright/test';
import type { JobRecord } from '../../main/lab/contract';
import { SHOTS, servedLab, watchConsole } from './lab';

const SECTIONS = ['graph', 'datasets', 'runs', 'trajectories', 'compare', 'jobs', 'about'] as const;

const { server, api } = servedLab();

test('without the token the server answers 401 and shows no app', async ({ page }) => {
  const res = await page.goto(server.origin + '/');
  expect(res?.status()).toBe(401);
  await expect(page.locator('body')).toContainText('needs its token');
  const api = await page.request.post(server.origin + '/api/app.info', { data: {} });
  expect(api.status()).toBe(401);
});

test('the server listens on 127.0.0.1 only', async () => {
  expect(new URL(server.url).hostname).toBe('127.0.0.1');
});

test('with the token the app loads, every section renders, and no console errors', async ({ page }) => {
  const consoleErrors = watchConsole(page);
  await page.goto(server.url);
  await expect(page.getByTestId('status-transport')).toContainText('web');
  // The token moved into an HttpOnly cookie and out of the address bar.
  expect(page.url()).not.toContain('token=');
  await expect(page.getByTestId('status-backend')).not.toContainText('detecting', { timeout: 90_000 });
  for (const id of SECTIONS) {
    await page.getByTestId(`nav-${id}`).click();
    await expect(page.locator('main.content')).toHaveAttribute('data-section', id);
    await expect(page.locator('main.content h1')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/section-${id}.png` });
  }
  expect(page.url()).toContain('#/about');
  await page.reload();
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'about');
  await expect(page.getByTestId('about-backends')).toContainText('chosen');
  await expect(page.getByTestId('about-base-model')).toContainText('the same notices apply to it');
  expect(consoleErrors).toEqual([]);
});

test('a job runs in a worker, its progress shows on the Jobs page and in the status bar, and it finishes', async ({ page }) => {
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/jobs');
  await expect(page.locator('main.content')).toHaveAttribute('data-section', 'jobs');
  // No developer panel: the page lists jobs, it does not offer to run a demo one.
  await expect(page.locator('main.content')).not.toContainText('Demo job');
  await expect(page.getByTestId('start-demo')).toHaveCount(0);
  await expect(page.getByTestId('demo-records')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/jobs-page.png` });

  const job = await api<JobRecord>(page, 'jobs.start', { kind: 'demo', params: { records: 30, intervalMs: 100 } });
  const row = page.locator(`tr[data-job-id="${job.id}"]`);
  await expect(row).toHaveAttribute('data-status', 'running');
  // Mid-run: the status bar shows the running job with a percentage.
  await expect(page.getByTestId('status-jobs')).toContainText('1 running');
  await expect(page.getByTestId('status-jobs')).toContainText(/Demo job [1-9]\d?%/);
  await page.screenshot({ path: `${SHOTS}/jobs-running.png` });
  await row.click();
  await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 90_000 });
  await expect(row.getByTestId('job-message')).toHaveText('done');
  await expect(page.getByTestId('status-jobs')).toContainText('no jobs running');
  await expect(page.getByTestId('job-detail')).toContainText('30 records');
  await page.screenshot({ path: `${SHOTS}/jobs-finished.png` });
  expect(consoleErrors).toEqual([]);
});

test('a failed job shows its error in its row', async ({ page }) => {
  await page.goto(server.url + '#/jobs');
  const job = await api<JobRecord>(page, 'jobs.start', { kind: 'demo', params: { records: 10, intervalMs: 5, failAt: 3 } });
  const row = page.locator(`tr[data-job-id="${job.id}"]`);
  await expect(row).toHaveAttribute('data-status', 'failed', { timeout: 90_000 });
  await expect(row.getByTestId('job-message')).toContainText('failed on purpose at record 3');
});
