// Job worker threads end with their job: twenty jobs in a row leave the process with the threads and
// memory it had before them, and a script that closes the core ends by itself.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

describe('job workers', () => {
  it('exit when their job ends: threads and RSS back within 20% of the baseline after twenty jobs', { timeout: 120_000 }, () => {
    const script = new URL('../support/fixtures/jobs-in-a-row.ts', import.meta.url).pathname;
    // glibc keeps memory a thread freed in that thread's arena (up to 8 per core): without a cap RSS rises to
    // about 1.7 times the baseline over the first 40 jobs and stays there through 80 (an allocator plateau,
    // not a leak). Two arenas make what the jobs left behind measurable; before the fix it was 5 times.
    // glibc also raises its mmap threshold each time a large block is freed, after which large blocks come
    // from the heap and stay resident: 122-150 MB after against a baseline of 113 over runs of the same
    // script. A fixed threshold returns them (87-90 MB after against 100-107).
    const env = { ...process.env, MALLOC_ARENA_MAX: '2', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' };
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], { encoding: 'utf8', env, timeout: 90_000 });
    expect(r.error?.message, 'the script did not end by itself after closing the core').toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
    const { baseline, after } = JSON.parse(r.stdout) as Record<'baseline' | 'after', { threads: number; rssMb: number }>;
    expect(after.threads).toBeLessThanOrEqual(baseline.threads * 1.2);
    expect(after.rssMb).toBeLessThanOrEqual(baseline.rssMb * 1.2);
  });
});
