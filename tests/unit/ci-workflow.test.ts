// The GitHub Actions workflows cannot run on this machine; what can be checked here is: they parse, they run
// the README's test command on the three platforms with the Electron test required, and every script, file
// and command-line tool their steps name exists in this checkout.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { appRoot } from '../../main/lab/base/paths';

const root = appRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };

interface Step { name?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown> }
interface Job { 'runs-on': string; strategy?: { matrix: { os: string[] } }; env?: Record<string, string>; defaults?: { run: { 'working-directory': string } }; steps: Step[] }
interface Workflow { name: string; on: Record<string, unknown>; jobs: Record<string, Job> }

const dir = join(root, '.github', 'workflows');
const workflows = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => ({ file: f, doc: parse(readFileSync(join(dir, f), 'utf8')) as Workflow }));
const ci = workflows.find((w) => w.file === 'ci.yml')!.doc;
const steps = (job: Job): Step[] => job.steps;
const commands = (job: Job): string[] => steps(job).flatMap((s) => (s.run ?? '').split('\n')).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

/** The README's test command: the code block under "## Test". */
function readmeTestCommand(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /## Test\s+```bash\n([^`]+)```/.exec(readme);
  return block![1]!.trim();
}

const FILE = /(?:^|\s)((?:[\w.-]+\/)+[\w.-]+\.(?:ts|mjs|cjs|js|sh|py|json|yml))(?=\s|$)/g;

/** What a command line names that must exist here (npm scripts, npx tools, files it reads) and the files it writes. */
function namedThings(line: string): { scripts: string[]; tools: string[]; files: string[]; writes: string[] } {
  const scripts = [...line.matchAll(/\bnpm run ([\w:-]+)/g)].map((m) => m[1]!);
  if (/\bnpm test\b/.test(line)) scripts.push('test');
  const tools = [...line.matchAll(/\bnpx ([\w@./-]+)/g)].map((m) => m[1]!);
  const [input, output = ''] = line.split('>');
  const files = [...input!.matchAll(FILE)].map((m) => m[1]!);
  const writes = [...output.matchAll(FILE)].map((m) => m[1]!);
  return { scripts, tools, files, writes };
}

/**
 * A step's `if:` evaluated for one runner and ref: the few GitHub expression forms the workflows use (`a == 'x'`,
 * `a != 'x'`, `startsWith(a, 'x')`, joined by `&&`), so a test asks which steps run, not how a condition is spelt.
 * Any other form throws, naming it.
 */
function runsOn(cond: string | undefined, ctx: Record<string, string>): boolean {
  if (cond === undefined) return true;
  return cond.split('&&').every((part) => {
    const p = part.trim();
    const cmp = /^([\w.]+)\s*(==|!=)\s*'([^']*)'$/.exec(p);
    if (cmp) return (ctx[cmp[1]!] === cmp[3]) === (cmp[2] === '==');
    const sw = /^startsWith\(([\w.]+),\s*'([^']*)'\)$/.exec(p);
    if (sw) return (ctx[sw[1]!] ?? '').startsWith(sw[2]!);
    throw new Error(`ci-workflow.test.ts cannot evaluate the condition: ${p}`);
  });
}

const hasTool = (name: string): boolean => name in pkg.bin || existsSync(join(root, 'node_modules', '.bin', name));

describe('GitHub Actions workflows', () => {
  it('parse, each with jobs of steps', () => {
    expect(workflows.length).toBeGreaterThan(0);
    for (const { file, doc } of workflows) {
      expect(Object.keys(doc.jobs).length, file).toBeGreaterThan(0);
      for (const [id, job] of Object.entries(doc.jobs)) expect(job.steps.length, `${file} ${id}`).toBeGreaterThan(0);
    }
  });

  it('run the README test command on Linux, macOS and Windows, Linux in a virtual display, the Electron test required', () => {
    const test = ci.jobs.test!;
    expect(test.strategy!.matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
    expect(test.env!.SAILOR_REQUIRE_ELECTRON).toBe('1');
    const command = readmeTestCommand();
    expect(command).toBe('npm test');
    const runs = steps(test).filter((s) => s.run?.trim().endsWith(command));
    // On each platform exactly one step runs the command; on Linux inside a virtual display.
    for (const os of ['Linux', 'macOS', 'Windows']) {
      const ran = runs.filter((s) => runsOn(s.if, { 'runner.os': os })).map((s) => s.run!.trim());
      expect(ran, os).toEqual([os === 'Linux' ? `xvfb-run -a ${command}` : command]);
    }
    expect(commands(test)).toContain('npx install-electron'); // the binary, fetched before the tests
  });

  it('lay the checkout out as .ci/run expects, with ../shared beside it for the reference samples', () => {
    const test = ci.jobs.test!;
    const checkouts = steps(test).filter((s) => s.uses?.startsWith('actions/checkout')).map((s) => s.with?.path);
    expect(checkouts).toEqual(['sailor-lab', 'shared']);
    expect(test.defaults!.run['working-directory']).toBe('sailor-lab');
  });

  it('package the app on every run, keep the installers on tags, and check the packaged app', () => {
    const lines = commands(ci.jobs.test!);
    expect(lines.some((l) => l.includes('npm run dist -- --dir'))).toBe(true);
    expect(lines).toContain('npx vitest run tests/unit/packaging.test.ts');
    const keep = steps(ci.jobs.test!).find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(runsOn(keep.if, { 'github.ref': 'refs/tags/v1.2.0' })).toBe(true);
    expect(runsOn(keep.if, { 'github.ref': 'refs/heads/main' })).toBe(false);
    expect(ci.on).toHaveProperty('push.tags', ['v*']);
  });

  it('measure the native backend: tfjs-node installed, doctor and the train bench as JSON, kept as an artefact', () => {
    const lines = commands(ci.jobs['native-backend']!);
    expect(lines.some((l) => /npm install --no-save .*@tensorflow\/tfjs-node@/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('npx sailor doctor --json >'))).toBe(true);
    expect(lines.some((l) => /^npx tsx bench\/speed\/train\.ts .*--json >/.test(l))).toBe(true);
    expect(steps(ci.jobs['native-backend']!).some((s) => s.uses?.startsWith('actions/upload-artifact'))).toBe(true);
  });

  it('name only scripts, tools and files that exist here', () => {
    const missing: string[] = [];
    for (const { file, doc } of workflows) {
      for (const job of Object.values(doc.jobs)) {
        const written = new Set<string>(); // by an earlier command of the job
        for (const line of commands(job)) {
          const named = namedThings(line);
          named.writes.forEach((f) => written.add(f));
          for (const s of named.scripts) if (!(s in pkg.scripts)) missing.push(`${file}: npm script '${s}' in: ${line}`);
          for (const t of named.tools) if (!hasTool(t)) missing.push(`${file}: tool '${t}' in: ${line}`);
          for (const f of named.files) if (!existsSync(join(root, f)) && !written.has(f)) missing.push(`${file}: file '${f}' in: ${line}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('evaluates the conditions it reads, and refuses one it cannot', () => {
    expect(runsOn("runner.os == 'Linux' && startsWith(github.ref, 'refs/tags/')", { 'runner.os': 'Linux', 'github.ref': 'refs/tags/v1' })).toBe(true);
    expect(runsOn("runner.os != 'Linux'", { 'runner.os': 'Linux' })).toBe(false);
    expect(() => runsOn("contains(runner.os, 'Lin')", {})).toThrow(/cannot evaluate the condition: contains/);
  });

  it('would catch a missing script, tool or file', () => {
    expect(namedThings('npm run nope && npx no-such-tool bench/no-such.ts > bench/results/x.json')).toEqual({
      scripts: ['nope'],
      tools: ['no-such-tool'],
      files: ['bench/no-such.ts'],
      writes: ['bench/results/x.json'],
    });
    expect(hasTool('no-such-tool')).toBe(false);
    expect(hasTool('sailor')).toBe(true);
  });
});
