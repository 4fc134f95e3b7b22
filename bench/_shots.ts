import { chromium } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../playwright.config';
import { serve } from '../tests/e2e/serve';
const lab = await serve();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
try {
  await page.goto(lab.url + '#/runs');
  await page.getByTestId('runs-new').click();
  const w = page.getByTestId('run-wizard');
  await w.getByTestId('wiz-build').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="wiz-build-job"]')?.getAttribute('data-status') === 'succeeded', null, { timeout: 120000 });
  for (const k of ['train', 'heldout', 'rl']) {
    await w.getByTestId(`wiz-synth-${k}`).click();
    await page.waitForFunction((id) => document.querySelector(`[data-testid="wiz-synth-${id}-job"]`)?.getAttribute('data-status') === 'succeeded', k, { timeout: 120000 });
  }
  await page.screenshot({ path: '/tmp/exp/shots/wizard-data.png' });
  await w.getByTestId('wiz-next').click();
  await page.screenshot({ path: '/tmp/exp/shots/wizard-model.png' });
  await w.getByTestId('wiz-init').selectOption('scratch');
  await page.screenshot({ path: '/tmp/exp/shots/wizard-model-scratch.png' });
  await page.goto(lab.url + '#/about');
  await page.screenshot({ path: '/tmp/exp/shots/about.png', fullPage: true });
} finally {
  await browser.close();
  await lab.stop();
}
