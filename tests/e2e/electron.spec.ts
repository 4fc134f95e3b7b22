// The desktop app through Playwright's Electron support. Runs where the Electron binary exists;
// elsewhere (no binary, no display) it reports itself skipped with the reason, unless
// SAILOR_REQUIRE_ELECTRON=1 (CI, .github/workflows/ci.yml): then a missing Electron fails it.
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_ORIGIN } from '../../main/desktop/app-protocol';
import type { JobRecord } from '../../main/lab/contract';
import { electronStatus } from '../../main/lab/app/electron-status';
import { CSP } from '../../main/lab/server/csp';

const status = electronStatus();
const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const required = process.env.SAILOR_REQUIRE_ELECTRON === '1';

if (required) {
  test('Electron can run here (SAILOR_REQUIRE_ELECTRON=1)', () => {
    expect(status.available, status.detail).toBe(true);
    expect(noDisplay, 'no display ($DISPLAY is not set)').toBe(false);
  });
}
test.describe('the desktop app', () => {
  test.skip(!status.available, `Electron is not available: ${status.detail}`);
  test.skip(noDisplay, 'no display to open a window on ($DISPLAY is not set)');

  /** Calls a contract method through the page's bridge. */
  function api<T>(page: Page, method: string, params: Record<string, unknown> = {}): Promise<T> {
    return page.evaluate(
      ([m, p]) => (globalThis as unknown as { sailor: { api: Record<string, (p: unknown) => Promise<unknown>> } }).sailor.api[m]!(p),
      [method, params] as const,
    ) as Promise<T>;
  }

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
      // The page comes from app://, with the CSP on every response, and nothing remote loads.
      expect(page.url().startsWith(`${APP_ORIGIN}/`)).toBe(true);
      const served = await page.evaluate(async () => {
        const r = await fetch('/index.html');
        const remote = await fetch('https://example.com/').then(() => 'loaded', (e: Error) => e.name);
        return { csp: r.headers.get('content-security-policy'), nosniff: r.headers.get('x-content-type-options'), remote };
      });
      expect(served).toEqual({ csp: CSP, nosniff: 'nosniff', remote: 'TypeError' });
    } finally {
      await app.close();
    }
  });

  /** The userData folder of a launch: Electron's per-platform config folder, pointed at `dir` by its variables. */
  function userDataEnv(dir: string): Record<string, string> {
    const env = { ...process.env } as Record<string, string>;
    delete env.SAILOR_HOME;
    return { ...env, XDG_CONFIG_HOME: dir, APPDATA: dir };
  }

  test.skip(process.platform === 'darwin' && !process.env.CI, 'on macOS nothing moves userData to a temporary folder; runs on CI runners only');
  test('a first launch keeps its data in userData and builds the knowledge base from the packaged data, with progress', async () => {
    test.setTimeout(240_000);
    const config = mkdtempSync(join(tmpdir(), 'sailor-userdata-'));
    let app: ElectronApplication | undefined;
    try {
      app = await electron.launch({ args: ['.'], env: userDataEnv(config) });
      const page = await app.firstWindow();
      await expect(page.getByTestId('status-transport')).toContainText('desktop');
      const userData = await app.evaluate(({ app: electronApp }) => electronApp.getPath('userData'));
      const info = await api<{ home: string }>(page, 'app.info');
      expect(info.home).toBe(join(userData, 'lab'));
      // The knowledge base is built in a job's worker thread on first use; its steps arrive as job progress.
      await page.evaluate(() => {
        const g = globalThis as unknown as { sailor: { on(e: string, l: (job: JobRecord) => void): void }; progress: string[] };
        g.progress = [];
        g.sailor.on('job.updated', (job) => g.progress.push(job.progress.message ?? ''));
      });
      let job = await api<JobRecord>(page, 'jobs.start', { kind: 'kg.build', params: { rng: 7, maxEdges: 300 } });
      await expect
        .poll(async () => (job = await api<JobRecord>(page, 'jobs.get', { id: job.id })).status, { timeout: 180_000, intervals: [500, 1000] })
        .toMatch(/succeeded|failed|cancelled|interrupted/);
      expect(job.error ?? '').toBe('');
      expect(job.status).toBe('succeeded');
      const progress = await page.evaluate(() => (globalThis as unknown as { progress: string[] }).progress);
      // Progress is sent at most a few times a second, so any of the build's steps may be the one seen.
      expect(progress.some((m) => /building knowledge base|reading|decoding|knowledge base ready/.test(m)), progress.join(' | ')).toBe(true);
      expect(progress.some((m) => /loaded from cache/.test(m))).toBe(false);
      expect(readdirSync(join(userData, 'lab', 'cache')).some((f) => /^kb-[0-9a-f]{12}\.json$/.test(f))).toBe(true);
      // The About page lists the bundled data's licences.
      await page.getByTestId('nav-about').click();
      await expect(page.getByTestId('about-licenses')).toContainText('world-countries');
      await expect(page.getByTestId('about-licenses')).toContainText('ODbL');
    } finally {
      await app?.close();
    }
  });
});
