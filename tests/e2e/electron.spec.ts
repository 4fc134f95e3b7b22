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
    const prefs = await app.evaluate(({ BrowserWindow }) => {
      const win = BrowserWindow.getAllWindows()[0]!;
      const p = win.webContents.getLastWebPreferences()!;
      return { visible: win.isVisible(), devtools: win.webContents.isDevToolsOpened(), crashed: win.webContents.isCrashed(), contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration };
    });
    expect(prefs).toEqual({ visible: true, devtools: false, crashed: false, contextIsolation: true, sandbox: true, nodeIntegration: false });
    // The page sees the bridge and nothing of Node.
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => Object.keys((window as unknown as { sailor: object }).sailor).sort())).toEqual(['api', 'events', 'methods', 'on']);
    // New windows are denied.
    await page.evaluate(() => window.open('https://example.com'));
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
  }
});
