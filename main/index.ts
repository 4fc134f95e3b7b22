// Electron main process: opens the lab core on the user's data directory, wires IPC, opens the window.
import { app, BrowserWindow } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabCore } from './lab/app/core';
import { registerIpc } from './desktop/ipc';
import { applySecurityRules, secureWebPreferences } from './desktop/security';
import { APP_INDEX_URL, isAppUrl as isAppOrDevUrl } from './desktop/app-protocol';
import { registerAppScheme, serveApp } from './desktop/protocol';

const here = dirname(fileURLToPath(import.meta.url));
const rendererDir = join(here, '../renderer');
const devServer = process.env.ELECTRON_RENDERER_URL; // set by `electron-vite dev` only
const isAppUrl = (url: string): boolean => isAppOrDevUrl(url, devServer);

registerAppScheme(); // before ready, or the scheme gets no origin

async function main(): Promise<void> {
  await app.whenReady();
  serveApp(rendererDir);
  applySecurityRules(isAppUrl, devServer);
  const home = process.env.SAILOR_HOME || join(app.getPath('userData'), 'lab');
  const core = await LabCore.open({ home });
  const windows = new Set<BrowserWindow>();
  registerIpc(core, isAppUrl, () => [...windows].map((w) => w.webContents));

  const createWindow = (): void => {
    const webPreferences = secureWebPreferences(join(here, '../preload/index.cjs'));
    // Electron has no getter for a window's preferences; keep what we applied for the e2e security test.
    (globalThis as { sailorWebPreferences?: unknown }).sailorWebPreferences = webPreferences;
    const win = new BrowserWindow({ width: 1400, height: 900, show: false, title: 'Sailor Lab', backgroundColor: '#0f1419', webPreferences });
    windows.add(win);
    win.on('closed', () => windows.delete(win));
    win.once('ready-to-show', () => win.show());
    void win.loadURL(devServer ?? APP_INDEX_URL);
  };
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let closing = false;
  app.on('before-quit', (event) => {
    if (closing) return;
    closing = true;
    event.preventDefault();
    void core.close().finally(() => app.quit());
  });
}

main().catch((err: unknown) => {
  console.error('Sailor Lab failed to start:', err);
  app.exit(1);
});
