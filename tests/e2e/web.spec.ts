// The real UI in Debian Chromium against the real `sailor serve`: token gate, every section, a demo job.
import { expect, test } from '@playwright/test';
import { SHOTS, servedLab, watchConsole } from './lab';

const SECTIONS = ['graph', 'datasets', 'runs', 'trajectories', 'compare', 'jobs', 'about'] as const;

const { server } = servedLab();

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
  await expect(page.getByTestId('status-backend')).not.toContainText('detecting', { timeout: 30_000 });
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

test('a demo job runs in a worker, its progress shows, and it finishes', async ({ page }) => {
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/jobs');
  await page.getByTestId('demo-records').fill('30');
  await page.getByTestId('demo-interval').fill('100');
  await page.getByTestId('start-demo').click();
  const row = page.locator('tr[data-job-id]').first();
  await expect(row).toHaveAttribute('data-status', 'running');
  // Mid-run: the status bar shows the running job with a percentage.
  await expect(page.getByTestId('status-jobs')).toContainText('1 running');
  await expect(page.getByTestId('status-jobs')).toContainText(/Demo job [1-9]\d?%/);
  await page.screenshot({ path: `${SHOTS}/jobs-running.png` });
  await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
  await expect(row.getByTestId('job-message')).toHaveText('done');
  await expect(page.getByTestId('status-jobs')).toContainText('no jobs running');
  await expect(page.getByTestId('job-detail')).toContainText('30 records');
  await page.screenshot({ path: `${SHOTS}/jobs-finished.png` });
  expect(consoleErrors).toEqual([]);
});

test('a bad request gets a clear error in the UI', async ({ page }) => {
  await page.goto(server.url + '#/jobs');
  await page.getByTestId('demo-records').fill('0');
  await page.getByTestId('start-demo').click();
  await expect(page.getByTestId('jobs-error')).toContainText('records');
});
