// What the browser tests share: a console-error watch, and the lab's API through the test's server for
// setup (graphs, datasets, runs made directly, so each test spends its time on the UI it is about).
import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import type { JobRecord } from '../../main/lab/contract';
import { serve, type Served } from './serve';

/** Where the browser tests leave their screenshots (kept as CI artefacts). */
export const SHOTS = 'test-results/screenshots';

/** A spec's screenshots: each PNG goes to SHOTS as `<prefix>-<name>.png`, and (when given) to a folder of its own as `<name>.png`. */
export function shooter(prefix: string, ownDir?: string): (page: Page, name: string) => Promise<void> {
  if (ownDir) mkdirSync(ownDir, { recursive: true });
  return async (page, name) => {
    await page.screenshot({ path: `${SHOTS}/${prefix}-${name}.png` });
    if (ownDir) await page.screenshot({ path: `${ownDir}/${name}.png` });
  };
}

/** Zod's and the transport's words: never shown to the user anywhere. */
export const SCHEMA_WORDS = /Too small|Too big|invalid params|expected number|Invalid input/;
/** What must never reach the user in a message: the schema's words, or a dotted config path. */
export const RAW = new RegExp(`${SCHEMA_WORDS.source}|\\b(sft|rl|eval|env|rft|model|data|init|checkpoint|tokenizer)\\.[a-zA-Z]+`);

/** The visible messages (errors, field errors, alerts) inside a scope. */
export async function messagesIn(scope: Locator): Promise<string[]> {
  return scope.locator('.error:visible, .field-error:visible, [role="alert"]:visible').allInnerTexts();
}
/** No message in the scope is schema text or names a config path. */
export async function expectNoRawText(scope: Locator): Promise<void> {
  for (const m of await messagesIn(scope)) expect(m).not.toMatch(RAW);
}
/** No text at all in the scope (messages or not) has the schema's words. */
export async function expectNoSchemaWords(scope: Locator): Promise<void> {
  expect(await scope.innerText()).not.toMatch(SCHEMA_WORDS);
}

/** Fills inputs by test id: `{ 'wiz-sft-steps': '60' }`. */
export async function fillAll(scope: Locator, values: Record<string, string>): Promise<void> {
  for (const [id, v] of Object.entries(values)) await scope.getByTestId(id).fill(v);
}

/** Clicks a uPlot chart's plot area at its last point (the right edge); the app navigates. */
export async function clickLastPoint(page: Page, chart: Locator): Promise<void> {
  const over = chart.locator('.u-over');
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
  await page.mouse.click(box.x + box.width - 3, box.y + box.height / 2);
}

/** Waits until an inline job line (`data-status`) has succeeded; a failed job fails at once, with its message. */
export async function jobSucceeded(line: Locator, timeout = 180_000): Promise<void> {
  await expect.poll(async () => line.getAttribute('data-status'), { timeout, intervals: [250, 500, 1000] }).toMatch(/succeeded|failed|cancelled|interrupted|error/);
  const status = await line.getAttribute('data-status');
  if (status !== 'succeeded') throw new Error(`${await line.getAttribute('data-testid')}: ${status}: ${await line.innerText()}`);
}

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
      .poll(async () => (job = await api<JobRecord>(page, 'jobs.get', { id: job.id })).status, { timeout: 600_000, intervals: [250, 500, 1000] }) // loaded CI: kg.build alone took over 3 min
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
