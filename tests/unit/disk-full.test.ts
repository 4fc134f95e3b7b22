// A full disk never cuts what the lab stores (issue #44, item 1): db.json, a checkpoint and a metrics stream are
// whole and new or whole and old, and the user gets one line saying the disk is full, naming the file. Two real
// ways to make a write short: a small tmpfs the test mounts and fills (root only; skipped where mount is not
// permitted), and the process's file-size limit (`ulimit -f`: the kernel writes up to the limit, reports no
// error, and fails the next write with EFBIG), which needs no privilege.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { openStoreDb } from '../../main/lab/store/db';
import { readJsonl } from '../../main/lab/store/files';
import { openMetrics } from '../../main/lab/runs/metrics';
import { loadCheckpoint, saveCheckpoint } from '../../main/lab/model/checkpoint';
import { createModel, disposeModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { LabError } from '../../main/lab/base/errors';
import { writeVerlRunFiles } from '../e2e/verl-fixture';

const PAGE = 4096;
const root = mkdtempSync(join(tmpdir(), 'sailor-diskfull-'));
const disk = join(root, 'disk');
mkdirSync(disk);
// A 4 MiB tmpfs: mounting needs root (CAP_SYS_ADMIN); elsewhere only the ulimit variant runs.
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', disk]).status === 0;

afterAll(() => {
  if (mounted) spawnSync('umount', [disk]);
  rmSync(root, { recursive: true, force: true });
});

/** Fills the filesystem under `dir` until exactly `free` bytes (whole pages) are left. */
function fillLeaving(dir: string, free: number): void {
  rmSync(join(dir, 'filler'), { force: true });
  writeFileSync(join(dir, 'slack'), Buffer.alloc(free));
  const fd = openSync(join(dir, 'filler'), 'w');
  try {
    const chunk = Buffer.alloc(256 * 1024);
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  rmSync(join(dir, 'slack'));
}
const unfill = (dir: string): void => rmSync(join(dir, 'filler'), { force: true });

/** The error a promise or call rejects with. */
async function failure(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (err) {
    return err;
  }
  throw new Error('expected it to fail: the write reported success');
}

function expectDiskFull(err: unknown, file: string): void {
  expect(err).toBeInstanceOf(LabError);
  expect((err as LabError).code).toBe('no_space');
  expect((err as LabError).message).toMatch(/disk full/);
  expect((err as LabError).message).toContain(file);
  expect((err as LabError).message).not.toContain('\n');
}

const noTemps = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

/** A store whose db.json is about `bytes` long (padding records), so that rewriting it needs that much room. */
async function paddedStore(home: string, bytes: number): Promise<string> {
  mkdirSync(home, { recursive: true });
  const db = await openStoreDb(home);
  await db.update((d) => {
    for (let i = 0; JSON.stringify(d).length < bytes; i++) d.comparisons.push({ id: `pad-${i}`, name: 'padding '.repeat(40), path: '', createdAt: new Date(0).toISOString(), info: {} });
  });
  return db.file;
}

const sailor = (args: string[], env: NodeJS.ProcessEnv, limitKiB?: number): ReturnType<typeof spawnSync> =>
  limitKiB === undefined
    ? spawnSync(process.execPath, ['bin/sailor.mjs', ...args], { encoding: 'utf8', env, timeout: 120_000 })
    : spawnSync('bash', ['-c', `ulimit -f ${limitKiB} && exec "$0" bin/sailor.mjs "$@"`, process.execPath, ...args], { encoding: 'utf8', env, timeout: 120_000 });

describe.skipIf(!mounted)('a real full disk (a 4 MiB tmpfs)', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('db.json stays whole and old when the disk cannot take its new version, and the error names it', async () => {
    const home = join(disk, 'store');
    const file = await paddedStore(home, 40_000);
    const db = await openStoreDb(home);
    const before = readFileSync(file);
    fillLeaving(disk, 2 * PAGE);
    try {
      const err = await failure(() => db.update((d) => void d.comparisons.pop()));
      expectDiskFull(err, file);
      expect(readFileSync(file)).toEqual(before);
      expect(noTemps(home)).toEqual([]);
    } finally {
      unfill(disk);
    }
    await db.update((d) => void d.comparisons.pop()); // with room again it works
    expect(JSON.parse(readFileSync(file, 'utf8')).comparisons.length).toBe(JSON.parse(before.toString()).comparisons.length - 1);
    rmSync(home, { recursive: true });
  });

  it('a full disk while taking the store lock is one line naming the lock holder file, and the lock is given back', async () => {
    const home = join(disk, 'lock-store');
    await paddedStore(home, 100);
    const db = await openStoreDb(home);
    fillLeaving(disk, 0);
    try {
      const err = await failure(() => db.update((d) => void d.comparisons.pop()));
      expectDiskFull(err, 'db.json.lock.holder.json');
    } finally {
      unfill(disk);
    }
    const t0 = Date.now();
    await db.update((d) => void d.comparisons.pop()); // not held by the failed attempt: no 5 s stale wait
    expect(Date.now() - t0).toBeLessThan(4000);
    rmSync(home, { recursive: true });
  });

  it('a checkpoint stays whole and old when its new weights do not fit', async () => {
    const cfg = resolveGPTConfig({ vocabSize: 300, blockSize: 32, nLayer: 2, nHead: 2, nEmbd: 64 });
    const dir = join(disk, 'ckpt', 'step-000001');
    const first = createModel(cfg, { seed: 1 });
    const second = createModel(cfg, { seed: 2 });
    try {
      await saveCheckpoint(dir, { model: first, step: 1 });
      const weightsBytes = statSync(join(dir, 'weights.bin')).size;
      expect(weightsBytes).toBeGreaterThan(8 * PAGE);
      fillLeaving(disk, 4 * PAGE);
      try {
        const err = await failure(() => saveCheckpoint(dir, { model: second, step: 2 }, { overwrite: true }));
        expectDiskFull(err, 'weights.bin');
      } finally {
        unfill(disk);
      }
      const loaded = await loadCheckpoint(dir); // verifies every file against the manifest's SHA-256
      expect(loaded.step).toBe(1);
      disposeModel(loaded.model);
      expect(readdirSync(join(disk, 'ckpt'))).toEqual(['step-000001']); // no staging folder left
    } finally {
      disposeModel(first);
      disposeModel(second);
      rmSync(join(disk, 'ckpt'), { recursive: true, force: true });
    }
  });

  it('a metrics stream keeps its whole records when a new one does not fit, and says so', () => {
    const path = join(disk, 'run', 'metrics.jsonl');
    const metrics = openMetrics(path, 0);
    for (let s = 0; s < 3; s++) metrics.write(s, { loss: 3 - s });
    const before = readFileSync(path);
    const wide = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`eval/level_${i}/pass@1`, i / 800]));
    fillLeaving(disk, PAGE);
    try {
      const err = (() => {
        try {
          metrics.write(3, wide); // longer than the page left and the slack in the file's last page
        } catch (e) {
          return e;
        }
        throw new Error('expected it to fail: the append reported success');
      })();
      expectDiskFull(err, path);
      expect(readFileSync(path)).toEqual(before);
    } finally {
      unfill(disk);
      metrics.close();
    }
    expect(readJsonl(path)).toMatchObject({ tornTail: false, records: [{ line: 1 }, { line: 2 }, { line: 3 }] });
    rmSync(join(disk, 'run'), { recursive: true });
  });

  it('`sailor import verl` on a full disk exits 1 with one line naming the file, and leaves db.json whole', async () => {
    const home = join(disk, 'cli-home');
    const file = await paddedStore(home, 40_000);
    const before = readFileSync(file);
    const verl = writeVerlRunFiles(join(root, 'verl-a'), 1);
    fillLeaving(disk, 4 * PAGE); // room for the run's small files, not for db.json's new version
    try {
      const r = sailor(['import', 'verl', '--metrics', verl.metrics, '--home', home], { ...process.env, SAILOR_HOME: home });
      expect(r.status, String(r.stderr)).toBe(1);
      const lines = String(r.stderr).trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^sailor import verl: .*: disk full \(no space left on the device, ENOSPC\)/);
      expect(lines[0]).toContain(home);
      expect(readFileSync(file)).toEqual(before);
    } finally {
      unfill(disk);
    }
    rmSync(home, { recursive: true });
  }, 150_000);
});

describe('a write made short by the file-size limit (ulimit -f), through the CLI', () => {
  it('`sailor import verl` whose db.json rewrite is cut exits 1 with one line naming db.json, which stays whole', async () => {
    const home = join(root, 'ulimit-home');
    const file = await paddedStore(home, 40_000); // db.json over the 16 KiB limit; the run's own files under it
    const before = readFileSync(file);
    const verl = writeVerlRunFiles(join(root, 'verl-b'), 1);
    const r = sailor(['import', 'verl', '--metrics', verl.metrics, '--home', home], { ...process.env, SAILOR_HOME: home }, 16);
    expect(r.status, String(r.stderr)).toBe(1);
    expect(String(r.stderr).trim()).toBe(`sailor import verl: ${file}: disk full (over the file-size limit, EFBIG); not written, the previous version is kept. Free some space and try again`);
    expect(readFileSync(file)).toEqual(before);
    expect(noTemps(home)).toEqual([]);
  }, 150_000);
});

describe('a read-only db.json (issue #44, item 8)', () => {
  it('is refused, naming it, and left as it was', async () => {
    const home = join(root, 'ro-home');
    const file = await paddedStore(home, 100);
    chmodSync(file, 0o444);
    const before = readFileSync(file);
    const db = await openStoreDb(home);
    const err = await failure(() => db.update((d) => void d.comparisons.pop()));
    expect((err as LabError).message).toBe(`${file}: read-only; not replaced. Make it writable (chmod u+w) to change the store`);
    expect(readFileSync(file)).toEqual(before);
    expect(statSync(file).mode & 0o777).toBe(0o444);
  });
});
