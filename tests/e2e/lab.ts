// What the browser tests share: a console-error watch, and the lab's API through the test's server for
// setup (graphs, datasets, runs made directly, so each test spends its time on the UI it is about).
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import type { JobRecord } from '../../main/lab/contract';
import { serve, type Served } from './serve';

/** Where the browser tests leave their screenshots (kept as CI artefacts). */
export const SHOTS = 'test-results/screenshots';

/** Collects console errors and uncaught page errors; a test asserts the list is empty at its end. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** API helpers bound to a spec's server (a getter: the server starts in beforeAll). */
export function apiFor(server: () => Served) {
  async function api<T>(page: Page, method: string, params: Record<string, unknown> = {}): Promise<T> {
    // The token as a bearer header: setup may run before the page has loaded (and got its cookie).
    const res = await page.request.post(`${server().origin}/api/${method}`, { data: params, headers: { authorization: `Bearer ${server().token}` } });
    const body = (await res.json()) as { ok: boolean; result: T; error?: { message: string } };
    if (!body.ok) throw new Error(body.error?.message ?? `${method} failed`);
    return body.result;
  }

  /** Starts a job and waits for it to succeed; returns its id (which is also its artefact's id). */
  async function runJob(page: Page, kind: string, params: Record<string, unknown>): Promise<string> {
    let job = await api<JobRecord>(page, 'jobs.start', { kind, params });
    await expect
      .poll(async () => (job = await api<JobRecord>(page, 'jobs.get', { id: job.id })).status, { timeout: 180_000, intervals: [250, 500, 1000] })
      .toMatch(/succeeded|failed|cancelled|interrupted/);
    expect(job.error ?? '').toBe('');
    expect(job.status).toBe('succeeded');
    return job.id;
  }

  return { api, runJob };
}

/**
 * One real `sailor serve` for a spec file, whose tests then run in order against it: started before the
 * first test (with a fresh data directory), stopped after the last. The returned `server` is filled in
 * when it has started, so tests read `server.url` as usual.
 */
export function servedLab() {
  const server = {} as Served;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    Object.assign(server, await serve());
    mkdirSync(SHOTS, { recursive: true });
  });
  test.afterAll(async () => {
    await server.stop?.();
  });
  return { server, ...apiFor(() => server) };
}
