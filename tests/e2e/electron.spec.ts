// The desktop app through Playwright's Electron support. Runs where the Electron binary exists;
// elsewhere (no binary, no display) it reports itself skipped with the reason.
import { _electron as electron, expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { electronStatus } from '../../main/lab/electron-status';

const status = electronStatus();
const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;

test.skip(!status.available, `Electron is not available: ${status.detail}`);
test.skip(noDisplay, 'no display to open a window on ($DISPLAY is not set)');

test('the desktop window opens securely and talks to the lab core', async () => {
  const app = await electron.launch({
    args: ['.'],
    env: { ...process.env, SAILOR_HOME: mkdtempSync(join(tmpdir(), 'sailor-electron-')) },
  });
  try {
    const page = await app.firstWindow();
    await expect(page.getByTestId('status-transport')).toContainText('desktop');
    const state = await app.evaluate(({ BrowserWindow }) => {
      const win = BrowserWindow.getAllWindows()[0]!;
      const p = (globalThis as { sailorWebPreferences?: Record<string, unknown> }).sailorWebPreferences ?? {};
      return {
        visible: win.isVisible(), devtools: win.webContents.isDevToolsOpened(), crashed: win.webContents.isCrashed(),
        contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration,
      };
    });
    expect(state).toEqual({ visible: true, devtools: false, crashed: false, contextIsolation: true, sandbox: true, nodeIntegration: false });
    // The page sees the bridge and nothing of Node.
    const page_ = await page.evaluate(() => {
      const g = globalThis as { require?: unknown; process?: unknown; sailor?: object };
      return { require: typeof g.require, process: typeof g.process, bridge: Object.keys(g.sailor ?? {}).sort() };
    });
    expect(page_).toEqual({ require: 'undefined', process: 'undefined', bridge: ['api', 'events', 'methods', 'on'] });
    // New windows are denied.
    await page.evaluate(() => (globalThis as unknown as { open(url: string): unknown }).open('https://example.com'));
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
  }
});
