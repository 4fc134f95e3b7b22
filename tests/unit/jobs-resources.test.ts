// Job worker threads end with their job: twenty jobs in a row leave the process with the threads and
// memory it had before them, and a script that closes the core ends by itself.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';

/** The whole script may take this long on a loaded machine (load 14 took it past 90 s, load 29 past 300 s): a limit, not a race. */
const SCRIPT_LIMIT_MS = 10 * 60_000;

describe('job workers', () => {
  it('exit when their job ends: threads and RSS back within 20% of the baseline after twenty jobs', { timeout: SCRIPT_LIMIT_MS + 60_000 }, async () => {
    const script = new URL('../support/fixtures/jobs-in-a-row.ts', import.meta.url).pathname;
    // glibc keeps memory a thread freed in that thread's arena (up to 8 per core): without a cap RSS rises to
    // about 1.7 times the baseline over the first 40 jobs and stays there through 80 (an allocator plateau,
    // not a leak). Two arenas make what the jobs left behind measurable; before the fix it was 5 times.
    // glibc also raises its mmap threshold each time a large block is freed, after which large blocks come
    // from the heap and stay resident: 122-150 MB after against a baseline of 113 over runs of the same
    // script. A fixed threshold returns them (87-90 MB after against 100-107).
    const env = { ...process.env, MALLOC_ARENA_MAX: '2', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // The exit event is what proves the script ended by itself; the limit is only for a script that never does.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))),
      new Promise<'limit'>((resolve) => (timer = setTimeout(() => resolve('limit'), SCRIPT_LIMIT_MS))),
    ]);
    clearTimeout(timer);
    if (code === 'limit') child.kill('SIGKILL');
    const state = stdout ? 'it had printed its measurements and closed the core' : 'it had not yet printed its measurements';
    expect(code, `the script did not end by itself within ${SCRIPT_LIMIT_MS / 1000} s (${state}); stderr:\n${stderr}`).not.toBe('limit');
    expect(code, stderr).toBe(0);
    const { baseline, after } = JSON.parse(stdout) as Record<'baseline' | 'after', { threads: number; rssMb: number }>;
    expect(after.threads).toBeLessThanOrEqual(baseline.threads * 1.2);
    expect(after.rssMb).toBeLessThanOrEqual(baseline.rssMb * 1.2);
  });
});
