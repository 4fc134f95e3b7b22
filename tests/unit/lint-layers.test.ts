// The layering of main/lab as eslint.config.js enforces it (LAB_LAYERS; docs/architecture.md): a module imports
// only from the layers below its own, so an upward import, static, type-only or dynamic, fails `npm run lint`.
// Linted through ESLint's own API on made-up files, so the test proves the rule, not today's code.
import { describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(import.meta.dirname, '..', '..');
const lab = join(root, 'main', 'lab');
const eslint = new ESLint({ cwd: root });

/** The layering errors of `code` linted as if it were `file`. */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

/** One import of `spec` from `file`, used so that no other rule complains. */
const importing = (spec: string): string => `import { x } from '${spec}';\nexport const y = x;\n`;

// The order the architecture documents, bottom first: each entry may import the ones before it.
const ORDER = ['formats', 'contract', 'store', 'kb', 'kg', 'synth', 'agent', 'model', 'rl', 'jobs', 'runs', 'train', 'server', 'cli'];

describe('layering lint', () => {
  it('fails an upward import: store importing train (the kind of tie there was)', { timeout: 60_000 }, async () => {
    const errors = await layerErrors('main/lab/store/new.ts', importing('../train/sft-job'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/main\/lab\/store may import only from the layers below/);
  });

  it('fails type-only and dynamic upward imports, and imports of a peer', { timeout: 60_000 }, async () => {
    expect(await layerErrors('main/lab/runs/new.ts', "import type { RlStage } from '../train/rl-stage';\nexport type S = RlStage;\n")).toHaveLength(1);
    expect(await layerErrors('main/lab/jobs/new.ts', "export const load = () => import('../train/sft-job');\n")).toHaveLength(1);
    expect(await layerErrors('main/lab/kg/new.ts', importing('../graph/wl'))).toHaveLength(1);
    expect(await layerErrors('main/lab/cli/commands/new.ts', importing('../../train/run'))).toHaveLength(0);
  });

  it('orders the layers: each may import the one below it, never the one above', { timeout: 120_000 }, async () => {
    for (const [i, lower] of ORDER.slice(0, -1).entries()) {
      const upper = ORDER[i + 1]!;
      expect(await layerErrors(`main/lab/${upper}/new.ts`, importing(`../${lower}/x`)), `${upper} -> ${lower}`).toHaveLength(0);
      expect(await layerErrors(`main/lab/${lower}/new.ts`, importing(`../${upper}/x`)), `${lower} -> ${upper}`).toHaveLength(1);
    }
  });

  it('keeps the files at main/lab root in their layers: errors.ts at the bottom, core.ts below server and cli', { timeout: 60_000 }, async () => {
    expect(await layerErrors('main/lab/errors.ts', importing('./store/files'))).toHaveLength(1);
    expect(await layerErrors('main/lab/util/new.ts', importing('../errors'))).toHaveLength(0);
    expect(await layerErrors('main/lab/train/new.ts', importing('../core'))).toHaveLength(1);
    expect(await layerErrors('main/lab/core.ts', importing('./server/http'))).toHaveLength(1);
    expect(await layerErrors('main/lab/core.ts', importing('./train/run'))).toHaveLength(0);
    expect(await layerErrors('main/lab/server/new.ts', importing('../core'))).toHaveLength(0);
  });

  it('puts every folder and file of main/lab in a layer', { timeout: 60_000 }, async () => {
    for (const name of readdirSync(lab)) {
      const file = statSync(join(lab, name)).isDirectory() ? join(lab, name, 'new.ts') : join(lab, name);
      if (!file.endsWith('.ts')) continue;
      const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
      expect(config.rules?.['no-restricted-syntax'], `${name} is in no layer of eslint.config.js LAB_LAYERS`).toBeDefined();
    }
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
