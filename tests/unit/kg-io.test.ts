import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabError } from '../../main/lab/base/errors';
import type { Graph } from '../../main/lab/formats/index';
import { isIsoDate, readGraphFile, validateGraph, writeGraphFile } from '../../main/lab/kg/io';

const dir = mkdtempSync(join(tmpdir(), 'sailor-kg-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function fileWith(value: unknown): string {
  const path = join(dir, `g${counter++}.json`);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function good(): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: [
      {
        id: 'n1',
        type: 'company',
        name: 'FormFactor',
        aliases: ['FormFactor, Inc.'],
        attrs: {
          inception: { type: 'date', value: '1993-04-01' },
          employees: { type: 'number', value: 2100, unit: 'people' },
          state: { type: 'string', value: 'Delaware' },
        },
        meta: { found_at_step: 3 },
      },
      { id: 'n2', type: 'person', name: 'Igor Khandros', aliases: [], attrs: {}, meta: {} },
    ],
    edges: [{ id: 'e1', source: 'n1', target: 'n2', relation: 'founded_by', meta: { evidence: '…', closes_cycle: false } }],
  };
}

/** The error a broken variant of the good graph gives. */
// any: these tests deliberately break the typed structure in arbitrary places.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

function errorFor(mutate: (g: Loose) => void): LabError {
  const g = good() as unknown as Loose;
  mutate(g);
  const path = fileWith(g);
  try {
    readGraphFile(path);
  } catch (err) {
    expect(err).toBeInstanceOf(LabError);
    expect((err as LabError).message.startsWith(`${path}: `)).toBe(true);
    return err as LabError;
  }
  throw new Error('expected readGraphFile to fail');
}

describe('readGraphFile', () => {
  it('reads a valid file and round-trips through writeGraphFile', () => {
    const g = readGraphFile(fileWith(good()));
    expect(g).toEqual(good());
    const out = join(dir, 'out.json');
    writeGraphFile(out, g);
    expect(readGraphFile(out)).toEqual(g);
    expect(readFileSync(out, 'utf8').endsWith('\n')).toBe(true);
  });

  it('fills in missing aliases, attrs and meta, and keeps info', () => {
    const g = readGraphFile(
      fileWith({ format: 'sailor.graph/1', info: { seed: 'x' }, nodes: [{ id: 'a', type: 'city', name: 'A' }], edges: [] }),
    );
    expect(g.nodes[0]).toEqual({ id: 'a', type: 'city', name: 'A', aliases: [], attrs: {}, meta: {} });
    expect(g.info).toEqual({ seed: 'x' });
  });

  it('names the field of a bad attribute value', () => {
    const err = errorFor((g) => (g.nodes[0].attrs.employees.value = '2k'));
    expect(err.code).toBe('bad_input');
    expect(err.message).toContain('nodes[0].attrs.employees.value: expected a finite number, got "2k"');
  });

  it('rejects impossible dates and unknown attribute types', () => {
    expect(errorFor((g) => (g.nodes[0].attrs.inception.value = '1993-02-30')).message).toContain('nodes[0].attrs.inception.value: expected an ISO date');
    expect(errorFor((g) => (g.nodes[0].attrs.inception.value = '04/01/1993')).message).toContain('nodes[0].attrs.inception.value');
    expect(errorFor((g) => (g.nodes[0].attrs.state.type = 'text')).message).toContain('nodes[0].attrs.state.type: expected "date", "number" or "string"');
  });

  it('rejects a wrong format tag, missing arrays and non-snake_case labels', () => {
    expect(errorFor((g) => (g.format = 'sailor.graph/2')).message).toContain('format: expected "sailor.graph/1"');
    expect(errorFor((g) => delete g.edges).message).toContain('edges: expected an array');
    expect(errorFor((g) => (g.edges[0].relation = 'Founded By')).message).toContain('edges[0].relation: must be a snake_case label');
    expect(errorFor((g) => (g.nodes[1].type = '')).message).toContain('nodes[1].type: expected a non-empty string');
    expect(errorFor((g) => (g.nodes[1].aliases = 'x')).message).toContain('nodes[1].aliases: expected an array of strings');
    expect(errorFor((g) => (g.nodes[1].meta = [])).message).toContain('nodes[1].meta: expected an object, got an array');
  });

  it('rejects duplicate ids and edges to missing nodes', () => {
    expect(errorFor((g) => (g.nodes[1].id = 'n1')).message).toContain('nodes[1].id: duplicate node id "n1" (first used by nodes[0])');
    expect(errorFor((g) => g.edges.push({ ...g.edges[0] })).message).toContain('edges[1].id: duplicate edge id "e1"');
    expect(errorFor((g) => (g.edges[0].target = 'n9')).message).toContain('edges[0].target: points at node "n9", which is not in nodes');
  });

  it('reports files that are not JSON, not objects, or missing', () => {
    const notJson = fileWith('{"format": ');
    expect(() => readGraphFile(notJson)).toThrow(/not valid JSON/);
    expect(() => readGraphFile(fileWith([1, 2]))).toThrow(/expected an object, got an array/);
    const missing = join(dir, 'nope.json');
    expect(() => readGraphFile(missing)).toThrow(LabError);
    try {
      readGraphFile(missing);
    } catch (err) {
      expect((err as LabError).code).toBe('not_found');
    }
  });

  it('validateGraph works on values without a file', () => {
    expect(() => validateGraph({ format: 'sailor.graph/1', nodes: [], edges: [] }, '<memory>')).not.toThrow();
    expect(() => validateGraph(null, '<memory>')).toThrow('<memory>: expected an object, got null');
  });
});

describe('isIsoDate', () => {
  it('accepts YYYY, YYYY-MM, YYYY-MM-DD with real months and days', () => {
    for (const ok of ['1993', '0980', '1993-04', '2024-02-29', '1999-12-31']) expect(isIsoDate(ok)).toBe(true);
    for (const bad of ['93', '1993-13', '2023-02-29', '1993-4-1', '1993-04-01T00:00', '-0384']) expect(isIsoDate(bad)).toBe(false);
  });
});
