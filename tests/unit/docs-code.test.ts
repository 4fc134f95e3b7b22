// The docs against the code: a function the docs place in a file (`` `agent/eval.ts evaluate` ``, or
// `` `evaluate` in `agent/eval.ts` ``) is defined there, so moving it fails here until the docs follow; every
// source file the docs name by its repository path (`bench/speed/train.ts`) exists, so a moved or renamed
// script fails too; every bench script is in docs/benchmarks.md; architecture.md's list of error codes is
// base/errors.ts's, no more and no less.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => ({ file: `docs/${f}`, text: readFileSync(join(root, 'docs', f), 'utf8') }));
docs.push({ file: 'README.md', text: readFileSync(join(root, 'README.md'), 'utf8') });

/** `` `dir/file.ts name` `` spans: a lab file (relative to main/lab, or from the repository root) and a name in it. */
function placedNames(text: string): Array<{ path: string; name: string }> {
  const spans = [...text.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.(?:ts|vue)) ([A-Za-z_$][\w$]*)`/g)].map((m) => ({ path: m[1]!, name: m[2]! }));
  const inFile = [...text.matchAll(/`([A-Za-z_$][\w$]*)(?:\(\))?` in `((?:[\w.-]+\/)+[\w.-]+\.(?:ts|vue))`/g)].map((m) => ({ path: m[2]!, name: m[1]! }));
  return [...spans, ...inFile];
}

/** Source files named by their path from the repository root, anywhere in a doc (commands included). */
function repoPaths(text: string): string[] {
  const found = text.matchAll(/(?<![\w./-])((?:bench|tests|main|renderer|preload|resources|\.ci)\/[\w./-]*[\w-]\.(?:ts|vue|py|sh|wat|html|mjs))/g);
  return [...found].map((m) => m[1]!).filter((p) => !p.startsWith('bench/results/'));
}

/** Every file under a folder, as repository paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

function sourceOf(path: string): string | null {
  for (const p of [join(root, 'main', 'lab', path), join(root, path)]) if (existsSync(p)) return readFileSync(p, 'utf8');
  return null;
}

const defines = (src: string, name: string): boolean =>
  new RegExp(`(function\\*?|const|let|class|interface|type|enum)\\s+${name}\\b|export\\s*\\{[^}]*\\b${name}\\b|^\\s*(async\\s+)?${name}\\??\\s*[(:<]`, 'm').test(src);

describe('docs against the code', () => {
  it('every function the docs place in a file is defined in that file', () => {
    const wrong: string[] = [];
    for (const { file, text } of docs) {
      for (const { path, name } of placedNames(text)) {
        const src = sourceOf(path);
        if (src === null) wrong.push(`${file}: ${path} does not exist (${name})`);
        else if (!defines(src, name)) wrong.push(`${file}: ${path} defines no ${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('would catch a name moved to another file', () => {
    expect(defines(sourceOf('agent/summary.ts')!, 'rolloutSummary')).toBe(true);
    expect(defines(sourceOf('agent/eval.ts')!, 'rolloutSummary')).toBe(false);
    expect(placedNames('see `agent/eval.ts evaluate` and `rl/batch.ts`; `isSolved` in `rl/batch.ts`')).toEqual([
      { path: 'agent/eval.ts', name: 'evaluate' },
      { path: 'rl/batch.ts', name: 'isSolved' },
    ]);
  });

  it('every source file the docs name by its path exists (a moved script fails here)', () => {
    const missing = docs.flatMap(({ file, text }) => repoPaths(text).filter((p) => !existsSync(join(root, p))).map((p) => `${file}: ${p}`));
    expect(missing).toEqual([]);
    expect(repoPaths('run `npx tsx bench/speed/train.ts --json` (bench/results/x.ts is output)')).toEqual(['bench/speed/train.ts']);
  });

  it('docs/benchmarks.md names every bench script that is run (helpers in bench/lib are not)', () => {
    const text = docs.find((d) => d.file === 'docs/benchmarks.md')!.text;
    const scripts = filesUnder('bench').filter((p) => p.endsWith('.ts') && !p.startsWith('bench/lib/') && !p.startsWith('bench/results/'));
    expect(scripts.length).toBeGreaterThan(20);
    expect(scripts.filter((p) => !text.includes(`\`${p.replace(/^bench\//, '').replace(/\.ts$/, '')}`))).toEqual([]);
  });

  it('docs/architecture.md lists every error code of base/errors.ts', () => {
    const union = /export type ErrorCode =([\s\S]+?)\n\n/.exec(sourceOf('base/errors.ts')!)![1]!;
    const codes = [...union.matchAll(/\| '(\w+)'/g)].map((m) => m[1]!);
    expect(codes).toContain('busy');
    const listed = /The codes come from\s+`base\/errors\.ts` \(([^)]+)\)/.exec(docs.find((d) => d.file === 'docs/architecture.md')!.text)![1]!;
    expect(codes.filter((c) => !listed.includes(`\`${c}\``))).toEqual([]);
    // And none it no longer has.
    expect([...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter((c) => !codes.includes(c))).toEqual([]);
  });
});
