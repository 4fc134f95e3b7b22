// The rules main and the renderer share, each defined once in the contract: run-set ids, the artefact id
// pattern, which runs may resume, the lookup style's synth params.
import { describe, expect, it } from 'vitest';
import { canResume, ID_PATTERN, JOB_PARAMS, paramRange, parseRunSetId, QUESTION_STYLES, ROLLOUT_MAX_SAMPLES, runSetId, type RunSetRef } from '../../main/lab/contract';

describe('run-set ids', () => {
  it('builds and parses each kind', () => {
    expect(runSetId({ kind: 'eval', runId: 'r1', step: 40 })).toBe('eval:r1:40');
    expect(runSetId({ kind: 'rl', runId: 'run.2_b-c', step: 0 })).toBe('rl:run.2_b-c:0');
    expect(runSetId({ kind: 'rft', runId: 'r1', step: 99 })).toBe('rft:r1'); // one RFT set per run: no step
    expect(parseRunSetId('eval:r1:40')).toEqual({ kind: 'eval', runId: 'r1', step: 40 });
    expect(parseRunSetId('rl:run.2_b-c:7')).toEqual({ kind: 'rl', runId: 'run.2_b-c', step: 7 });
    expect(parseRunSetId('rft:r1')).toEqual({ kind: 'rft', runId: 'r1', step: 0 });
    expect(runSetId({ kind: 'relabel', runId: 'r1', step: 3 })).toBe('relabel:r1:3');
    expect(parseRunSetId('relabel:r1:3')).toEqual({ kind: 'relabel', runId: 'r1', step: 3 });
  });

  it('round-trips', () => {
    const refs: RunSetRef[] = [{ kind: 'eval', runId: 'a', step: 3 }, { kind: 'rl', runId: 'b.c', step: 12 }, { kind: 'rft', runId: 'd', step: 0 }];
    for (const ref of refs) expect(parseRunSetId(runSetId(ref))).toEqual(ref);
  });

  it('is null for a stored set id and for malformed ones', () => {
    for (const id of ['20260101-rollout-abc', 'eval:r1', 'eval:r1:x', 'rl:a:b:3', 'rft:', 'rft:r1:3', 'eval:r1:-1', 'sft:r1:3', ' eval:r1:1', 'relabel:r1', 'relabel:r1:x']) {
      expect(parseRunSetId(id), id).toBeNull();
    }
  });
});

describe('artefact ids', () => {
  it('one pattern for the methods and the job params', () => {
    expect(['g1', '20260101-synth-ab12.x', 'eval:r:1'].every((id) => ID_PATTERN.test(id))).toBe(true);
    expect(['', 'a/b', 'a b', '../x'].some((id) => ID_PATTERN.test(id))).toBe(false);
    const bad = JOB_PARAMS.synth.safeParse({ graphId: 'a/b' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('letters, digits and . _ : - only');
  });
});

describe('canResume', () => {
  it('a run that stopped early or never got a trainer; not one running or finished', () => {
    expect((['created', 'interrupted', 'failed', 'cancelled'] as const).every(canResume)).toBe(true);
    expect((['running', 'finished'] as const).some(canResume)).toBe(false);
  });
});

describe('question styles', () => {
  it('lookups are valid synth params that name an entity and obfuscate nothing', () => {
    const p = JOB_PARAMS.synth.parse({ graphId: 'g', ...QUESTION_STYLES.lookup.params });
    expect(p).toMatchObject({ kinds: [], anchorProb: 1, maxConstraints: 0 });
    expect(JOB_PARAMS.synth.safeParse({ graphId: 'g', ...QUESTION_STYLES.obfuscated.params }).success).toBe(true);
  });
});

describe('paramRange: a form\'s min and max from the job\'s schema', () => {
  it('reads the bounds through defaults and optionals, only those the schema sets', () => {
    expect(paramRange('rollout', 'n')).toEqual({ min: 1, max: ROLLOUT_MAX_SAMPLES });
    expect(paramRange('compare', 'samples')).toEqual({ min: 1, max: 16 });
    expect(paramRange('compare', 'temperature')).toEqual({ min: 0, max: 2 });
    expect(paramRange('kg.build', 'maxEdges')).toEqual({ min: 10, max: 20_000 });
    expect(() => paramRange('rollout', 'policy')).toThrow(/policy is not a number param/);
  });
});
