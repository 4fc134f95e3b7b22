// wat-inline.ts: helpers marked `;; @inline` are written out at their calls (simd-build.ts runs it on simd.wat).
import { describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
import { inlineMarked } from '../../main/lab/model/kernels/wat-inline';

const source = `(module
  ;; @inline
  (func $twice (param $x f32) (result f32)
    (local $y f32)
    (local.set $y (f32.add (local.get $x) (local.get $x)))
    (local.get $y))
  ;; @inline
  (func $plusTwice (param $x f32) (param $z f32) (result f32)
    (local $w f32)
    (local.set $w (call $twice (local.get $z)))
    (f32.add (local.get $x) (local.get $w)))
  (func (export "run") (param $a f32) (param $b f32) (result f32)
    (local $y f32)
    (local.set $y (f32.const 1))
    ;; 4a + (b + 2b) + y: nested calls, a helper calling a helper, and a caller's own $y beside the helper's
    (f32.add (f32.add (call $twice (call $twice (local.get $a))) (call $plusTwice (local.get $b) (local.get $b))) (local.get $y))))`;

async function run(text: string, a: number, b: number): Promise<number> {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('t.wat', text);
  parsed.validate();
  const bytes = new Uint8Array(parsed.toBinary({}).buffer);
  parsed.destroy();
  // The project's TypeScript libs leave the WebAssembly API out (kernels.ts does the same).
  const wa = (globalThis as unknown as { WebAssembly: { instantiate(b: Uint8Array): Promise<{ instance: { exports: object } }> } }).WebAssembly;
  const { instance } = await wa.instantiate(bytes);
  return (instance.exports as { run(a: number, b: number): number }).run(a, b);
}

describe('inlineMarked', () => {
  it('writes the marked helpers out at every call, nested and helper-in-helper, and computes what the calls did', async () => {
    const out = inlineMarked(source);
    expect(out).not.toMatch(/\(func \$twice|\(func \$plusTwice|\(call /);
    expect(out).toContain('(local $twice.x f32) (local $twice.y f32)');
    expect(out).toContain('(local $plusTwice.twice.x f32)');
    expect(await run(source, 3, 5)).toBe(4 * 3 + 3 * 5 + 1);
    expect(await run(out, 3, 5)).toBe(4 * 3 + 3 * 5 + 1);
  });

  it('names the helper when a call passes the wrong number of arguments', () => {
    const bad = source.replace('(call $twice (local.get $z))', '(call $twice (local.get $z) (local.get $x))');
    expect(() => inlineMarked(bad)).toThrow('$twice takes 1 arguments, a call passes 2');
  });

  it('leaves a module without markers as it is', () => {
    const plain = source.replaceAll(';; @inline\n', '');
    expect(inlineMarked(plain)).toBe(plain);
  });
});
