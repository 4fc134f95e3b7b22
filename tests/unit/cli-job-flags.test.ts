// The CLI and the job schemas agree: every command with a job counterpart takes that job's params as flags with
// the schema's defaults, ranges and choices (cli/job-flags.ts), checked here through the real dispatcher: a value
// just outside a range is refused naming the flag (exit 2), the bounds and every choice are accepted.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import { allCommands } from '../../main/lab/cli/commands';
import type { CliCommand, CliIO } from '../../main/lab/cli/command';
import { kebabCase, type ParamSchema } from '../../main/lab/cli/job-flags';
import { JOB_PARAMS, isJobKind, type JobKind } from '../../main/lab/contract/jobs';
import { SYNTH_DEFAULTS } from '../../main/lab/synth/options';

function capture(): CliIO & { stderr: string } {
  const io = { stderr: '', out: () => undefined, err: (t: string) => void (io.stderr += t) };
  return io;
}

const missing = join(tmpdir(), 'sailor-no-such-dir', 'x');
/** Arguments that get each command past its flags and then stop it fast (a file or folder that is not there). */
const REST: Record<string, string[]> = {
  'kg build': ['--out', join(missing, 'g.json')],
  synth: ['--graph', missing, '--out', join(missing, 'd.jsonl')],
  rollout: ['--graph', missing, '--dataset', missing, '--policy', 'oracle', '--out', join(missing, 't.jsonl')],
};

const withJob = allCommands.filter((c): c is CliCommand & { job: NonNullable<CliCommand['job']> } => c.job !== undefined);

async function refusal(cmd: CliCommand, args: string[]): Promise<{ code: number; stderr: string }> {
  const io = capture();
  const code = await runCli([...cmd.path, ...REST[cmd.path.join(' ')]!, ...args], io);
  return { code, stderr: io.stderr };
}

describe('CLI flags from the job schemas', () => {
  it('the commands with a job counterpart', () => {
    expect(withJob.map((c) => `${c.path.join(' ')} ↔ ${c.job.kind}`).sort()).toEqual(['kg build ↔ kg.build', 'rollout ↔ rollout', 'synth ↔ synth']);
    for (const c of withJob) expect(isJobKind(c.job.kind)).toBe(true);
  });

  for (const kind of Object.keys(JOB_PARAMS).filter(isJobKind) as JobKind[]) {
    const cmds = withJob.filter((c) => c.job.kind === kind);
    if (!cmds.length) continue;
    const props = (z.toJSONSchema(JOB_PARAMS[kind], { io: 'input' }) as { properties: Record<string, ParamSchema> }).properties;
    for (const cmd of cmds) {
      it(`${cmd.path.join(' ')}: every param of ${kind} is a flag with its default, range and choices`, async () => {
        const omitted = new Set<string>(cmd.job.omit);
        for (const [param, s] of Object.entries(props)) {
          const flag = kebabCase(param);
          if (omitted.has(param)) continue;
          const opt = cmd.options[flag];
          expect(opt, `--${flag}`).toBeDefined();
          if (s.default !== undefined) expect(opt!.default, `--${flag} default`).toBe(String(s.default));
          // A bound is accepted as a value in range (another rule across fields may still refuse the pair).
          const refused = new RegExp(`--${flag}: must be`);
          if (s.type === 'integer' || s.type === 'number') {
            if (s.maximum !== undefined) {
              const over = await refusal(cmd, [`--${flag}=${s.maximum + 1}`]);
              expect([over.code, over.stderr], `--${flag} over`).toEqual([2, expect.stringMatching(new RegExp(`--${flag}: must be at most`))]);
              expect((await refusal(cmd, [`--${flag}=${s.maximum}`])).stderr, `--${flag} at max`).not.toMatch(refused);
            }
            if (s.minimum !== undefined) {
              const under = await refusal(cmd, [`--${flag}=${s.minimum - 1}`]);
              expect([under.code, under.stderr], `--${flag} under`).toEqual([2, expect.stringMatching(new RegExp(`--${flag}: must be at least`))]);
              expect((await refusal(cmd, [`--${flag}=${s.minimum}`])).stderr, `--${flag} at min`).not.toMatch(refused);
            }
          }
          if (s.enum) {
            for (const choice of s.enum) expect((await refusal(cmd, [`--${flag}`, String(choice)])).stderr, `--${flag} ${String(choice)}`).not.toMatch(refused);
            const bad = await refusal(cmd, [`--${flag}`, 'not-a-choice']);
            expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining(`--${flag}: must be one of ${s.enum.join(', ')}`)]);
          }
        }
      });
    }
  }

  it("settles #34's disagreements: one value each", () => {
    const opts = (path: string): CliCommand['options'] => allCommands.find((c) => c.path.join(' ') === path)!.options;
    const props = (kind: JobKind): Record<string, ParamSchema> => (z.toJSONSchema(JOB_PARAMS[kind], { io: 'input' }) as { properties: Record<string, ParamSchema> }).properties;
    expect(opts('kg build').rng!.default).toBe('7'); // the job's and the wizard's seed
    expect(props('kg.build').maxEdges!.maximum).toBe(20_000);
    expect(props('rollout').n!.maximum).toBe(32); // pass@k up to k = 32
    expect(props('rollout').reward!.enum).toEqual(['em', 'f1', 'judge']);
    expect(opts('synth')['min-edges']!.default).toBe(String(SYNTH_DEFAULTS.minEdges));
    expect(props('synth').minEdges!.maximum).toBe(50);
  });
});
