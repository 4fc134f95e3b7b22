// What the journey reads off the screens it walks through (tests/e2e/web.journey.spec.ts): the dashboard's and
// Compare's figures, and the checks that no raw text or schema word shows.
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { ComparisonView } from '../../main/lab/contract';
import { expectNoRawText, expectNoSchemaWords, type apiFor } from './lab';

type ApiCall = ReturnType<typeof apiFor>['api'];

export const content = (page: Page): Locator => page.locator('main.content');
export async function noRawAnywhere(page: Page): Promise<void> {
  await expectNoRawText(content(page));
  await expectNoSchemaWords(content(page));
}
/** The run's evaluation at a step, as the dashboard lists it ("step 20 pass@1 0.0500 · tools 1.200"). */
export async function dashboardPassAt(dash: Locator, step: number): Promise<number> {
  const text = await dash.getByTestId(`dash-eval-${step}`).innerText();
  return Number(/pass@1 ([\d.]+)/.exec(text)![1]);
}
/** A comparison's pass@1 cell as shown ("5.0%" and its interval): the percentage. */
export async function comparePass(table: Locator, column: number): Promise<number> {
  const text = await table.locator('[data-testid="cmp-row"][data-key="pass@1"]').getByTestId('cmp-cell').nth(column).innerText();
  return Number(/([\d.]+)\s*%/.exec(text)![1]);
}
/** Starts the comparison the form holds and waits for it to open; returns it. */
export async function runComparison(page: Page, api: ApiCall): Promise<ComparisonView> {
  const open = page.getByTestId('cmp-open');
  const before = (await open.count()) ? await open.getAttribute('data-id') : null;
  await page.getByTestId('cmp-new').getByTestId('cmp-start').click();
  // The new comparison opens by itself once its job is done (in place of the one open before).
  await expect(page.getByTestId('cmp-new')).toHaveCount(0, { timeout: 240_000 });
  await expect(open).toBeVisible();
  await expect(open).not.toHaveAttribute('data-id', before ?? '');
  return api<ComparisonView>(page, 'comparisons.get', { id: (await open.getAttribute('data-id'))! });
}
/** The interval of each pass@1, the paired test, and no colour on metrics without a direction. */
export async function expectStatistics(page: Page): Promise<void> {
  const summary = page.getByTestId('cmp-summary');
  await expect(summary.getByTestId('cmp-rates')).toHaveText(/^A \d+\.\d % \(\d+–\d+\) · B \d+\.\d % \(\d+–\d+\)$/);
  await expect(summary.getByTestId('cmp-sign-test')).toContainText(/McNemar/);
  await expect(summary).not.toContainText('Best in');
  const table = page.getByTestId('cmp-table');
  await expect(table.locator('[data-testid="cmp-row"][data-key="pass@1"]').getByTestId('cmp-ci')).toHaveCount(2);
  for (const key of ['tool_calls', 'turns', 'tokens']) {
    await expect(table.locator(`[data-testid="cmp-row"][data-key="${key}"]`).locator('td.best, .delta.good, .delta.bad, .dir')).toHaveCount(0);
  }
}

/** More than six decimals: a raw float (0.8760932944606414) rather than a formatted number. */
export const RAW_FLOAT = /\d\.\d{7,}/;

/** Times the journey's phases (each call closes one; `restart` opens the first) and prints them after the spec's last test. */
export function phaseTimer(): ((name: string) => void) & { restart(): void } {
  const phases: string[] = [];
  let t0 = Date.now();
  test.afterAll(() => console.log(`journey phases\n  ${phases.join('\n  ')}`));
  const phase = (name: string): void => {
    phases.push(`${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    t0 = Date.now();
  };
  return Object.assign(phase, { restart: () => void (t0 = Date.now()) });
}
