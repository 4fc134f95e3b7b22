// `sailor import verl --follow` as a user runs it (issue #44, item 2): the real CLI in a child process keeps
// following while the test appends to verl's metrics file, says so when the file is truncated or rotated, stops on
// SIGINT or SIGTERM after one last read (exit 0), and ends with exit 1 and the error when a line cannot be read.
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { readJsonl } from '../../main/lab/store/files';
import { metricsFile } from '../../main/lab/runs/layout';
import { appendVerlStep, metricsLine, writeVerlRunFiles } from '../e2e/verl-fixture';
import { tempDirs } from '../support/tmp-dirs';

const tmp = tempDirs();

/** A slow, loaded machine takes long to start the CLI; every wait is on what it prints, this long at most. */
const WAIT_MS = 90_000;

interface Follower {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stderr: () => string;
  stdout: () => string;
  /** Resolves once stderr matches `pattern`; rejects, quoting stderr, after WAIT_MS or when the CLI exits first. */
  said: (pattern: RegExp) => Promise<void>;
  exited: Promise<number | null>;
}

function follow(metrics: string, home: string): Follower {
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'import', 'verl', '--metrics', metrics, '--home', home, '--follow'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  const waiters = new Set<() => void>();
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of [...waiters]) w();
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    for (const w of [...waiters]) w();
    resolve(code);
  }));
  const said = (pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (pattern.test(err)) done(resolve);
        else if (child.exitCode !== null) done(() => reject(new Error(`the CLI exited (${child.exitCode}) before saying ${pattern}; stderr:\n${err}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${WAIT_MS} ms; stderr:\n${err}`))), WAIT_MS);
      const done = (f: () => void): void => {
        clearTimeout(timer);
        waiters.delete(check);
        f();
      };
      waiters.add(check);
      check();
    });
  return { child, stderr: () => err, stdout: () => out, said, exited };
}

const importedSteps = (home: string, runId: string): number[] => readJsonl(metricsFile(home, runId)).records.map((r) => (r.value as { step: number }).step);

describe('sailor import verl --follow', () => {
  it('imports steps appended after it started, through a truncation and a rotation, until SIGINT', async () => {
    const verl = writeVerlRunFiles(tmp('follow-verl-'), 1); // steps 0 and 1
    const home = tmp('follow-home-');
    const f = follow(verl.metrics, home);
    try {
      await f.said(/following the files; Ctrl\+C stops/);
      appendVerlStep(verl.metrics, 2);
      await f.said(/step 2: \d+ metrics/);
      writeFileSync(verl.metrics, metricsLine(3)); // verl restarted: its logger opens the file with "wb"
      await f.said(/truncated\); reading it from the start, steps up to 2 already imported are skipped/);
      await f.said(/step 3: \d+ metrics/);
      renameSync(verl.metrics, `${verl.metrics}.1`); // logrotate: the old file moved aside, a new one begun
      writeFileSync(verl.metrics, metricsLine(3) + metricsLine(4));
      await f.said(/rotated or recreated\)|gone \(rotated or deleted\)/);
      await f.said(/step 4: \d+ metrics/);
      f.child.kill('SIGINT');
      expect(await f.exited, f.stderr()).toBe(0);
      const runId = f.stdout().trim();
      expect(f.stderr()).toContain(`stopped following (SIGINT); run ${runId} keeps the steps up to 4`);
      expect(importedSteps(home, runId)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      f.child.kill('SIGKILL');
    }
  }, 4 * WAIT_MS);

  it('on SIGTERM reads once more, so a step written just before it is kept', async () => {
    const verl = writeVerlRunFiles(tmp('follow-verl-'), 1);
    const home = tmp('follow-home-');
    const f = follow(verl.metrics, home);
    try {
      await f.said(/following the files/);
      appendVerlStep(verl.metrics, 2);
      f.child.kill('SIGTERM');
      expect(await f.exited, f.stderr()).toBe(0);
      const runId = f.stdout().trim();
      expect(f.stderr()).toContain(`stopped following (SIGTERM); run ${runId} keeps the steps up to 2`);
      expect(importedSteps(home, runId)).toEqual([0, 1, 2]);
    } finally {
      f.child.kill('SIGKILL');
    }
  }, 3 * WAIT_MS);

  it('a line it cannot read ends following with exit 1 and the error, the steps before it kept', async () => {
    const verl = writeVerlRunFiles(tmp('follow-verl-'), 1);
    const home = tmp('follow-home-');
    const f = follow(verl.metrics, home);
    try {
      await f.said(/following the files/);
      appendFileSync(verl.metrics, metricsLine(2) + '{"step": 3, "data": \n');
      expect(await f.exited, f.stderr()).toBe(1);
      const runId = f.stdout().trim();
      expect(f.stderr()).toMatch(new RegExp(`following stopped: ${verl.metrics.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4: .*\\n.*keeps the steps up to 2`));
      expect(importedSteps(home, runId)).toEqual([0, 1, 2]);
    } finally {
      f.child.kill('SIGKILL');
    }
  }, 3 * WAIT_MS);
});
