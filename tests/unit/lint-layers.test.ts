// The layering of main/lab as eslint.config.js enforces it (LAB_LAYERS; docs/architecture.md): a module imports
// only from the layers below its own, so an upward import, static, type-only or dynamic, fails `npm run lint`.
// Linted through ESLint's own API on made-up files, so the test proves the rule, not today's code.
import { describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';

const root = join(import.meta.dirname, '..', '..');
const lab = join(root, 'main', 'lab');
const eslint = new ESLint({ cwd: root });

/** The layering errors of `code` linted as if it were `file`. */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'lab/layers').map((m) => m.message);
}

/** One import of `spec` from `file`, used so that no other rule complains. */
const importing = (spec: string): string => `import { x } from '${spec}';\nexport const y = x;\n`;

// The order the architecture documents, bottom first: each entry may import the ones before it.
const ORDER = ['base', 'formats', 'contract', 'store', 'kb', 'kg', 'synth', 'agent', 'kbsource', 'model/kernels', 'model', 'rl', 'jobs', 'runs',
  'train/policy', 'train/rl-stage', 'train/sft', 'train/job', 'train/act', 'app', 'server', 'cli'];

/** The specifier from main/lab/<from>/new.ts to main/lab/<to>/x. */
const specTo = (from: string, to: string): string => `${'../'.repeat(from.split('/').length)}${to}/x`;

describe('layering lint', () => {
  it('fails an upward import: store importing train (the kind of tie there was)', { timeout: 60_000 }, async () => {
    const errors = await layerErrors('main/lab/store/new.ts', importing('../train/job/train-job'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/main\/lab\/store may import only from the layers below/);
  });

  it('fails type-only and dynamic upward imports, re-exports, and imports of a peer', { timeout: 60_000 }, async () => {
    expect(await layerErrors('main/lab/runs/new.ts', "import type { RlStage } from '../train/rl-stage/rl-stage';\nexport type S = RlStage;\n")).toHaveLength(1);
    expect(await layerErrors('main/lab/jobs/new.ts', "export const load = () => import('../train/job/train-job');\n")).toHaveLength(1);
    expect(await layerErrors('main/lab/jobs/new.ts', "export { x } from '../train/act/estimate';\n")).toHaveLength(1);
    expect(await layerErrors('main/lab/kg/new.ts', importing('../graph/wl'))).toHaveLength(1);
    expect(await layerErrors('main/lab/train/pretrain/new.ts', importing('../rl-stage/rl-job'))).toHaveLength(1);
    expect(await layerErrors('main/lab/cli/commands/new.ts', importing('../../train/policy/run'))).toHaveLength(0);
  });

  it('orders the layers: each may import the one below it, never the one above', { timeout: 120_000 }, async () => {
    for (const [i, lower] of ORDER.slice(0, -1).entries()) {
      const upper = ORDER[i + 1]!;
      expect(await layerErrors(`main/lab/${upper}/new.ts`, importing(specTo(upper, lower))), `${upper} -> ${lower}`).toHaveLength(0);
      expect(await layerErrors(`main/lab/${lower}/new.ts`, importing(specTo(lower, upper))), `${lower} -> ${upper}`).toHaveLength(1);
    }
  });

  // [the file, what it imports, whether lint refuses it]
  const CASES: Array<[string, string, boolean]> = [
    // the kernels below the rest of model/, which picks the fast path
    ['model/kernels/new.ts', '../gpt', true],
    ['model/kernels/new.ts', '../../train/job/train-job', true],
    ['model/kernels/new.ts', './fused-kernel', false],
    ['model/gpt.ts', './kernels/attention', false],
    // the train stages in order: policy, then pretrain and rl-stage, sft, job, act
    ['train/rl-stage/new.ts', '../job/train-job', true],
    ['train/sft/new.ts', '../job/train-job', true],
    ['train/sft/new.ts', '../rl-stage/rl-job', false],
    ['train/job/new.ts', '../sft/relabel-stage', false],
    ['train/policy/new.ts', '../act/rollout-job', true],
    ['train/act/new.ts', '../../../rl/loss', false],
    // base at the bottom, app below server and cli
    ['base/errors.ts', '../store/files', true],
    ['base/errors.ts', '../util/rng', true],
    ['util/new.ts', '../base/errors', false],
    ['train/sft/new.ts', '../../app/core', true],
    ['app/core.ts', '../server/http', true],
    ['app/core.ts', '../train/policy/run', false],
    ['server/new.ts', '../app/core', false],
  ];
  it('keeps the nested units, base and app in their layers', { timeout: 60_000 }, async () => {
    for (const [file, spec, refused] of CASES) {
      expect(await layerErrors(`main/lab/${file}`, importing(spec)), `${file} -> ${spec}`).toHaveLength(refused ? 1 : 0);
    }
  });

  it('puts every folder of main/lab that holds code in a layer; a loose file at main/lab or train/ is in none', { timeout: 60_000 }, async () => {
    const folders = (dir: string): string[] => readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory()).flatMap((n) => [join(dir, n), ...folders(join(dir, n))]);
    const withCode = folders(lab).filter((dir) => readdirSync(dir).some((n) => n.endsWith('.ts')));
    const { LAB_LAYERS } = (await import(pathToFileURL(join(root, 'eslint.config.js')).href)) as { LAB_LAYERS: string[][] };
    for (const unit of LAB_LAYERS.flat()) expect(withCode, `LAB_LAYERS names ${unit}, a folder with no code`).toContain(join(lab, unit));
    for (const dir of withCode) {
      const file = join(dir, 'new.ts').slice(root.length + 1);
      expect(await layerErrors(file, 'export const y = 1;\n'), `${file} is in no layer of eslint.config.js LAB_LAYERS`).toEqual([]);
    }
    for (const file of ['main/lab/new.ts', 'main/lab/train/new.ts']) expect(await layerErrors(file, 'export const y = 1;\n')).toEqual([expect.stringMatching(/in no layer/)]);
  });
});

describe('the formatter (ESLint Stylistic in `npm run lint`)', () => {
  it('fails what the house style does not write, and fixes it with `npm run format`', { timeout: 60_000 }, async () => {
    const code = 'export const a = "x"\nexport function f(b: number) { return b*2 }\n';
    const [result] = await eslint.lintText(code, { filePath: join(root, 'main/lab/util/new.ts') });
    const rules = new Set(result!.messages.map((m) => m.ruleId));
    for (const rule of ['@stylistic/quotes', '@stylistic/semi', '@stylistic/space-infix-ops']) expect(rules, rule).toContain(rule);
    const fixer = new ESLint({ cwd: root, fix: true });
    const [fixed] = await fixer.lintText(code, { filePath: join(root, 'main/lab/util/new.ts') });
    expect(fixed!.output).toBe("export const a = 'x';\nexport function f(b: number) { return b * 2; }\n");
  });
});
