// The data folder itself (issue #44, item 8): a read-only one is refused at once with one line naming it (it was
// a raw `EACCES rmdir` after 20 s, or a stack trace), and the heartbeat folders that killed processes leave in
// procs/ are cleared when the store is next opened. The read-only folder is real: a read-only bind mount where
// the test may mount (root), else a folder without write permission (which root would ignore).
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabError } from '../../main/lab/base/errors';
import { openStoreDb } from '../../main/lab/store/db';
import { heartbeatPath, removeStaleHeartbeats } from '../../main/lab/store/lockfile';
import { writeVerlRunFiles } from '../e2e/verl-fixture';

const root = mkdtempSync(join(tmpdir(), 'sailor-folder-'));
const isRoot = process.getuid?.() === 0;
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) spawnSync('umount', [m]);
  rmSync(root, { recursive: true, force: true });
});

/** Makes `dir` read-only for this process, as a user would meet it; null when it cannot here (why, printed). */
function makeReadOnly(dir: string): string | null {
  if (!isRoot) {
    chmodSync(dir, 0o555);
    return 'EACCES';
  }
  const bind = spawnSync('mount', ['--bind', dir, dir]);
  if (bind.status !== 0) return null;
  mounts.push(dir);
  return spawnSync('mount', ['-o', 'remount,bind,ro', dir]).status === 0 ? 'EROFS' : null;
}

describe('a read-only data folder', () => {
  it('`sailor import verl` is refused at once, exit 1, one line naming the folder; nothing in it changes', () => {
    const home = join(root, 'ro-home');
    const verl = writeVerlRunFiles(join(root, 'verl'), 2);
    const env = { ...process.env, SAILOR_HOME: home };
    const sailor = (): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, ['bin/sailor.mjs', 'import', 'verl', '--metrics', verl.metrics, '--home', home], { encoding: 'utf8', env, timeout: 300_000 });
    const first = sailor();
    expect(first.status, String(first.stderr)).toBe(0);
    const before = readdirSync(home).sort();
    const code = makeReadOnly(home);
    if (code === null) {
      console.warn('skipped: this process can neither mount (to make a read-only bind mount) nor be refused by permissions (root)');
      return;
    }
    const r = sailor();
    expect(r.status, String(r.stderr)).toBe(1);
    expect(String(r.stderr).trim()).toBe(
      `sailor import verl: ${home}: the data folder is read-only (${code}); the lab keeps its store there. Make it writable, or choose another with --home or SAILOR_HOME`,
    );
    expect(readdirSync(home).sort()).toEqual(before);
  }, 600_000);

  it('made read-only while the store is open: a change is refused at once (not after the lock\'s 20 s wait), naming it', async () => {
    const home = join(root, 'ro-later');
    const db = await openStoreDb(home);
    await db.update((d) => void d.comparisons.push({ id: 'c', name: 'c', path: '', createdAt: new Date(0).toISOString(), info: {} }));
    const code = makeReadOnly(home);
    if (code === null) return console.warn('skipped: cannot make a folder read-only here (see above)');
    const t0 = Date.now();
    const err = await db.update((d) => void d.comparisons.pop()).then(() => null, (e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(10_000); // the lock's own wait is 20 s; this is refused before any wait
    expect(err).toBeInstanceOf(LabError);
    expect((err as LabError).code).toBe('conflict');
    expect((err as LabError).message).toBe(`${home}: the data folder is read-only (${code}); the lab keeps its store there. Make it writable, or choose another with --home or SAILOR_HOME`);
    expect(db.data.comparisons.map((c) => c.id)).toEqual(['c']);
  });
});

describe('heartbeats left by killed processes', () => {
  const home = join(root, 'beats');
  const beat = (session: string, holder: { pid: number } | null, ageMs = 0): string => {
    const path = heartbeatPath(home, session);
    mkdirSync(path, { recursive: true });
    if (holder) writeFileSync(`${path}.holder.json`, JSON.stringify({ pid: holder.pid, since: new Date().toISOString() }));
    const t = (Date.now() - ageMs) / 1000;
    utimesSync(path, t, t);
    return path;
  };
  // A pid that was real and is gone: a child that has exited.
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;

  it('are removed when their holder is gone, or unwritten and stale, or silent for ten minutes; live ones stay', async () => {
    const killed = beat('killed', { pid: deadPid });
    const noNoteStale = beat('no-note-stale', null, 20_000);
    const noNoteFresh = beat('no-note-fresh', null);
    const live = beat('live', { pid: process.pid }, 20_000); // a live holder whose beat is late (a busy thread)
    const reused = beat('reused', { pid: process.pid }, 11 * 60_000); // its pid now another process's
    await openStoreDb(home);
    expect(existsSync(killed) || existsSync(`${killed}.holder.json`)).toBe(false);
    expect(existsSync(noNoteStale)).toBe(false);
    expect(existsSync(reused) || existsSync(`${reused}.holder.json`)).toBe(false);
    expect(existsSync(noNoteFresh)).toBe(true);
    expect(existsSync(live) && existsSync(`${live}.holder.json`)).toBe(true);
    expect(removeStaleHeartbeats(home)).toEqual([]);
  });
});
