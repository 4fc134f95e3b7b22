// The docs against the code: a function the docs place in a file (`` `agent/eval.ts evaluate` ``) is defined
// there, so moving it fails here until the docs follow; every error code base/errors.ts defines is in
// docs/architecture.md's list of codes.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => ({ file: `docs/${f}`, text: readFileSync(join(root, 'docs', f), 'utf8') }));
docs.push({ file: 'README.md', text: readFileSync(join(root, 'README.md'), 'utf8') });

/** `` `dir/file.ts name` `` spans: a lab file (relative to main/lab, or from the repository root) and a name in it. */
function placedNames(text: string): Array<{ path: string; name: string }> {
  return [...text.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.(?:ts|vue)) ([A-Za-z_$][\w$]*)`/g)].map((m) => ({ path: m[1]!, name: m[2]! }));
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
    expect(placedNames('see `agent/eval.ts evaluate` and `rl/batch.ts`')).toEqual([{ path: 'agent/eval.ts', name: 'evaluate' }]);
  });

  it('docs/architecture.md lists every error code of base/errors.ts', () => {
    const union = /export type ErrorCode =([\s\S]+?)\n\n/.exec(sourceOf('base/errors.ts')!)![1]!;
    const codes = [...union.matchAll(/\| '(\w+)'/g)].map((m) => m[1]!);
    expect(codes).toContain('busy');
    const listed = /The codes come from\s+`base\/errors\.ts` \(([^)]+)\)/.exec(docs.find((d) => d.file === 'docs/architecture.md')!.text)![1]!;
    expect(codes.filter((c) => !listed.includes(`\`${c}\``))).toEqual([]);
  });
});
