import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isAbandonedTemp, readJsonl, TEMP_MAX_AGE_MS, tempWriterPid, writeJsonAtomic } from '../../main/lab/store/files';
import { openJsonlAppender } from '../../main/lab/store/jsonl';
import { openStoreDb, STORE_VERSION, type StoreDb } from '../../main/lab/store/db';
import { readHolder, tryLock } from '../../main/lab/store/lockfile';
import { LabError } from '../../main/lab/base/errors';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sailor-store-'));

describe('atomic writes', () => {
  it('replaces the file whole and leaves no temporary files', () => {
    const dir = tmp();
    const file = join(dir, 'a.json');
    writeJsonAtomic(file, { v: 1 });
    writeJsonAtomic(file, { v: 2 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ v: 2 });
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  // Three child processes, each starting tsx and writing 2 MB files: minutes on a loaded machine (item 10).
  it('a process killed in the middle of rewriting never leaves a half-written file', { timeout: 300_000 }, async () => {
    const dir = tmp();
    const file = join(dir, 'big.json');
    writeJsonAtomic(file, { round: -1 });
    // A child rewrites a ~2 MB file in a tight loop; we SIGKILL it mid-flight, several times.
    const script = `
      const { writeJsonAtomic } = await import(${JSON.stringify(new URL('../../main/lab/store/files.ts', import.meta.url).href)});
      const pad = 'x'.repeat(2_000_000);
      for (let round = 0; ; round++) { writeJsonAtomic(${JSON.stringify(file)}, { round, pad }); if (round === 3) process.stdout.write('go\\n'); }`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      // Its 'go' (four rewrites done), or its exit should it fail first (then the file is checked all the same).
      await new Promise<void>((resolve) => (child.stdout.once('data', () => resolve()), child.once('exit', () => resolve())));
      await new Promise((r) => setTimeout(r, 30 + attempt * 20));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { round: number };
      expect(parsed.round).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('JSON Lines streams', () => {
  it('reads records and skips a torn last line', () => {
    const file = join(tmp(), 's.jsonl');
    writeFileSync(file, '{"a":1}\n\n{"a":2}\n{"a":');
    const r = readJsonl(file);
    expect(r.records.map((x) => x.value)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(r.tornTail).toBe(true);
  });

  it('a broken line in the middle is an error naming file and line', () => {
    const file = join(tmp(), 's.jsonl');
    writeFileSync(file, '{"a":1}\n{oops}\n{"a":3}\n');
    expect(() => readJsonl(file)).toThrow(/s\.jsonl:2: not valid JSON/);
  });

  it('the appender trims a torn tail before appending, so the stream stays clean', () => {
    const file = join(tmp(), 's.jsonl');
    writeFileSync(file, '{"i":0}\n{"i":1}\n{"i":');
    const app = openJsonlAppender(file);
    expect(app.repairedBytes).toBe(5);
    app.append({ i: 2 });
    app.close();
    expect(readFileSync(file, 'utf8')).toBe('{"i":0}\n{"i":1}\n{"i":2}\n');
    expect(readJsonl(file).tornTail).toBe(false);
  });

  it('appends to an existing clean stream without touching it', () => {
    const file = join(tmp(), 's.jsonl');
    appendFileSync(file, '{"i":0}\n');
    const app = openJsonlAppender(file);
    app.append({ i: 1 });
    app.close();
    expect(readJsonl(file).records.map((r) => r.value)).toEqual([{ i: 0 }, { i: 1 }]);
  });
});

describe('store metadata (db.json)', () => {
  it('starts empty and persists', async () => {
    const home = tmp();
    const db = await openStoreDb(home);
    expect(db.data.version).toBe(STORE_VERSION);
    await db.update((data) => void data.graphs.push({ id: 'g1', name: 'g', path: 'graphs/g.json', createdAt: 'now', info: {} }));
    expect((await openStoreDb(home)).data.graphs).toHaveLength(1);
  });

  it('two handles on one store (as two processes) both keep every record they add, interleaved', async () => {
    const home = tmp();
    const [a, b] = [await openStoreDb(home), await openStoreDb(home)];
    const add = (db: StoreDb, id: string) => db.update((data) => void data.graphs.push({ id, name: id, path: `graphs/${id}.json`, createdAt: 'now', info: {} }));
    await Promise.all([...Array(20).keys()].map((i) => add(i % 2 ? a : b, `g${i}`)));
    const ids = (await openStoreDb(home)).data.graphs.map((g) => g.id).sort();
    expect(ids).toEqual([...Array(20).keys()].map((i) => `g${i}`).sort());
    expect(a.data.graphs).toHaveLength(20); // a sees what b wrote without reopening
    expect(readdirSync(home).sort()).toEqual(['db.json']); // lock released, no temporary files
  });

  it('takes over a lock left by a killed process once its heartbeat is stale, and waits for a live one', async () => {
    const home = tmp();
    const db = await openStoreDb(home);
    // A killed holder: its lock directory stays, its heartbeat (the directory's mtime) stops.
    mkdirSync(db.lockFile);
    const past = new Date(Date.now() - 60_000);
    utimesSync(db.lockFile, past, past);
    await db.update((data) => void data.projects.push({ id: 'p', name: 'p', path: 'p', createdAt: 'now', info: {} }));
    expect(db.data.projects).toHaveLength(1);
    const held = tryLock(db.lockFile, { staleMs: 5000 });
    if (!held.acquired) throw new Error('lock not free');
    let done = false;
    const pending = db.update(() => (done = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(done).toBe(false);
    held.release();
    await pending;
    expect(done).toBe(true);
    expect(readdirSync(home).sort()).toEqual(['db.json']);
  });

  it('a lock whose holder pid now names another live process is taken over once its heartbeat is stale, not before', () => {
    const path = join(tmp(), 'trainer.lock');
    // The holder note names a pid that runs (this very process, as a reused pid would) ...
    mkdirSync(path);
    writeFileSync(`${path}.holder.json`, JSON.stringify({ pid: process.pid, since: '2026-01-01T00:00:00.000Z', note: 'job-1' }));
    // ... while its heartbeat is fresh the lock is refused and names its holder,
    const refused = tryLock(path, { staleMs: 5000 });
    expect(refused).toEqual({ acquired: false, holder: { pid: process.pid, since: '2026-01-01T00:00:00.000Z', note: 'job-1' } });
    // ... and once the heartbeat is older than staleMs it is taken over, with this holder's note beside it.
    const past = new Date(Date.now() - 6000);
    utimesSync(path, past, past);
    const taken = tryLock(path, { staleMs: 5000, note: 'job-2' });
    if (!taken.acquired) throw new Error('stale lock not taken over');
    expect(readHolder(path)?.note).toBe('job-2');
    taken.release();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.holder.json`)).toBe(false);
  });

  it('refuses a corrupt file with a clear error and leaves it byte for byte', async () => {
    const home = tmp();
    const file = join(home, 'db.json');
    writeFileSync(file, '{"format": "sailor.store", "version": 1, "runs": [');
    const before = readFileSync(file);
    const err = await openStoreDb(home).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabError);
    expect((err as LabError).code).toBe('corrupt');
    expect((err as LabError).message).toContain('db.json: not valid JSON');
    expect((err as LabError).message).toContain('left untouched');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a store written by a newer version and does not overwrite it', async () => {
    const home = tmp();
    const file = join(home, 'db.json');
    const newer = JSON.stringify({ format: 'sailor.store', version: STORE_VERSION + 1, runs: [], somethingNew: {} });
    writeFileSync(file, newer);
    const err = await openStoreDb(home).catch((e: unknown) => e);
    expect((err as LabError).code).toBe('unsupported');
    expect((err as LabError).message).toMatch(/newer Sailor Lab/);
    expect(readFileSync(file, 'utf8')).toBe(newer);
  });

  it('refuses a file of another format', async () => {
    const home = tmp();
    writeFileSync(join(home, 'db.json'), JSON.stringify({ format: 'something.else', version: 1 }));
    await expect(openStoreDb(home)).rejects.toThrow(/expected "sailor\.store"/);
  });
});

describe('temporary names', () => {
  it('never collide between worker threads writing the same file at once (their counters all start at 0)', { timeout: 60_000 }, async () => {
    const { spawnWorker } = await import('../../main/lab/util/worker-spawn');
    const dir = mkdtempSync(join(tmpdir(), 'sailor-tmpnames-'));
    const target = join(dir, 'db.json');
    const script = new URL('../support/fixtures/atomic-writer.ts', import.meta.url).pathname;
    const barrier = new SharedArrayBuffer(4);
    const results = await Promise.all(
      [0, 1, 2].map(
        (n) =>
          new Promise<string | null>((resolve, reject) => {
            const w = spawnWorker(script, { target, n, writers: 3, barrier });
            w.once('message', (m: string | null) => void w.terminate().then(() => resolve(m)));
            w.once('error', reject);
          }),
      ),
    );
    expect(results).toEqual([null, null, null]);
    expect(JSON.parse(readFileSync(target, 'utf8')).i).toBe(299); // some writer's last
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('temporary files left by a kill', () => {
  it('are removed when the store opens; a live writer\'s in another process stays, and so does anything else', async () => {
    const home = tmp();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((r) => live.once('spawn', r));
    try {
      mkdirSync(join(home, 'cache'));
      mkdirSync(join(home, 'runs', 'r1', 'checkpoints', `.step-00000010.tmp-${deadPid}-0`), { recursive: true });
      const files = {
        killed: join(home, 'cache', `.kb-0123456789ab.json.${deadPid}.0.1a2b3c4d.0.tmp`),
        killedOldStyle: join(home, `.db.json.${deadPid}.3.tmp`),
        liveWriter: join(home, 'graphs', `.g.json.${live.pid}.0.5e6f7a8b.2.tmp`),
        notTemp: join(home, 'graphs', '.notes.tmp'),
        data: join(home, 'graphs', 'g.json'),
      };
      for (const f of Object.values(files)) {
        mkdirSync(dirname(f), { recursive: true });
        writeFileSync(f, 'x');
      }
      await openStoreDb(home);
      expect(existsSync(files.killed)).toBe(false);
      expect(existsSync(files.killedOldStyle)).toBe(false);
      expect(readdirSync(join(home, 'runs', 'r1', 'checkpoints'))).toEqual([]);
      expect(existsSync(files.liveWriter)).toBe(true);
      expect(existsSync(files.notTemp)).toBe(true);
      expect(existsSync(files.data)).toBe(true);
    } finally {
      live.kill('SIGKILL');
    }
  });

  it('are abandoned once their writer is gone or they are older than any write takes', () => {
    const alive = (pid: number): boolean => pid === 7;
    expect(tempWriterPid('.db.json.7.0.a1b2c3d4.12.tmp')).toBe(7);
    expect(tempWriterPid('.step-00000500.tmp-7-3')).toBe(7);
    expect(tempWriterPid('db.json')).toBeNull();
    expect(isAbandonedTemp(7, 1000, alive)).toBe(false);
    expect(isAbandonedTemp(8, 1000, alive)).toBe(true);
    expect(isAbandonedTemp(7, TEMP_MAX_AGE_MS + 1, alive)).toBe(true);
  });
});
