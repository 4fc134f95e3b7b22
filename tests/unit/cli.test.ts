import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import type { CliCommand, CliIO } from '../../main/lab/cli/command';
import { optInt, reqString } from '../../main/lab/cli/command';
import { inputError } from '../../main/lab/base/errors';

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
  };
  return io;
}

const echo: CliCommand = {
  path: ['echo', 'num'],
  summary: 'test command',
  usage: 'echo num --n N --name S FILE',
  options: { n: { type: 'string', description: 'a number' }, name: { type: 'string', description: 'a name' } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const n = optInt(ctx, 'n', 1, { min: 0 });
    const name = reqString(ctx, 'name');
    if (ctx.positionals[0] === 'bad.json') throw inputError('bad.json', 'expected a string', { line: 3, field: 'query.rel' });
    ctx.io.out(`${name}:${n}\n`);
  },
};

describe('sailor CLI dispatcher', () => {
  it('runs a command with typed options', async () => {
    const io = capture();
    expect(await runCli(['echo', 'num', '--n', '4', '--name', 'x', 'f'], io, [echo])).toBe(0);
    expect(io.stdout).toBe('x:4\n');
  });

  it('passes a flag left out as not given, so a command can put its own default (a checkpoint\'s limit) before the one --help shows', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const limits: CliCommand = {
      path: ['limits'],
      summary: 'test command',
      usage: 'limits [--max-tool-calls N]',
      options: { 'max-tool-calls': { type: 'string', description: 'tool calls per episode', default: '30' }, json: { type: 'boolean', description: 'json', default: false } },
      async run(ctx) {
        seen.push(ctx.values);
        ctx.io.out(`${optInt(ctx, 'max-tool-calls', 12)}\n`); // 12: what a checkpoint's run config would say
      },
    };
    const io = capture();
    expect(await runCli(['limits'], io, [limits])).toBe(0);
    expect(await runCli(['limits', '--max-tool-calls', '30'], io, [limits])).toBe(0);
    expect(seen[0]).toEqual({});
    expect(seen[1]).toEqual({ 'max-tool-calls': '30' });
    expect(io.stdout).toBe('12\n30\n');
    const help = capture();
    await runCli(['limits', '--help'], help, [limits]);
    expect(help.stdout).toMatch(/--max-tool-calls.*\(default 30\)/);
  });

  it('exits 2 naming the problem for every kind of bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['bogus'], /unknown command 'bogus'/],
      [['echo'], /did you mean one of: echo num/],
      [['echo', 'num', '--n', '4', '--name', 'x'], /expected 1 argument/],
      [['echo', 'num', '--n', 'four', '--name', 'x', 'f'], /--n must be a whole number, got 'four'/],
      [['echo', 'num', '--n=-1', '--name', 'x', 'f'], /--n must be at least 0/],
      [['echo', 'num', '--n', '-1', '--name', 'x', 'f'], /'--n' argument is ambiguous/],
      [['echo', 'num', 'f'], /--name is required/],
      [['echo', 'num', '--wat', 'f'], /Unknown option '--wat'/],
      [['echo', 'num', '--name', 'x', 'bad.json'], /bad\.json:3: query\.rel: expected a string/],
    ];
    for (const [argv, message] of cases) {
      const io = capture();
      expect(await runCli(argv, io, [echo]), argv.join(' ')).toBe(2);
      expect(io.stderr, argv.join(' ')).toMatch(message);
      expect(io.stdout).toBe('');
    }
  });

  it('prints help for the whole CLI and for one command', async () => {
    const io = capture();
    expect(await runCli(['--help'], io, [echo])).toBe(0);
    expect(io.stdout).toContain('echo num');
    const one = capture();
    expect(await runCli(['echo', 'num', '--help'], one, [echo])).toBe(0);
    expect(one.stdout).toContain('Usage: sailor echo num --n N');
    expect(one.stdout).toContain('--name');
  });

  it('works as the real `sailor` binary: --help, doctor, and exit 2 on a bogus command', () => {
    const run = (args: string[]) => spawnSync(process.execPath, ['bin/sailor.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('serve');
    expect(help.stdout).toContain('doctor');
    const bogus = run(['bogus']);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain("unknown command 'bogus'");
    const doctor = run(['doctor', '--json']);
    expect(doctor.status).toBe(0);
    const report = JSON.parse(doctor.stdout) as { backend: { chosen: string; attempts: unknown[] }; electron: { available: boolean; detail: string }; data_dir: string };
    expect(report.backend.attempts).toHaveLength(4);
    expect(typeof report.electron.detail).toBe('string');
    expect(report.data_dir.length).toBeGreaterThan(0);
  });

  it('exits 2 with a message naming the file, not a stack trace, for a corrupt db.json or a missing data file', () => {
    const home = mkdtempSync(join(tmpdir(), 'sailor-cli-'));
    const run = (args: string[]) => spawnSync(process.execPath, ['bin/sailor.mjs', ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SAILOR_HOME: home } });
    writeFileSync(join(home, 'db.json'), '{"format": "sailor.store", "version": 1, "runs": [');
    const corrupt = run(['train', '--resume', 'some-run']);
    expect(corrupt.status).toBe(2);
    expect(corrupt.stderr).toContain(`${join(home, 'db.json')}: not valid JSON`);
    expect(corrupt.stderr).not.toMatch(/\n\s+at /);

    rmSync(join(home, 'db.json'));
    const config = join(home, 'run.json');
    writeFileSync(config, JSON.stringify({ data: { graphFile: 'missing-graph.json', datasetFile: 'missing.jsonl' } }));
    const missing = run(['train', '--config', config]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`${config}: data.graphFile: ${join(home, 'missing-graph.json')}: no such file`);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});
