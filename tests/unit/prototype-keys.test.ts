// Names that come from outside (requests, configs, graph and dataset files) are looked up as own keys only:
// `constructor`, `toString`, `__proto__` … are unknown names, never a function or object off the prototype.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attrWords, dateClause, dateEvent, relPhrase, typeNoun, unitText } from '../../main/lab/synth/lexicon';
import { fillTemplate } from '../../main/lab/agent/tools';
import { validateGraph } from '../../main/lab/kg/io';
import { resolvePolicy } from '../../main/lab/agent/policies';
import { LabCore } from '../../main/lab/app/core';
import { ownValue, recordOf } from '../../main/lab/util/own';
import { GRAPH_FORMAT } from '../../main/lab/formats';

const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', '__defineGetter__'];

describe('lookups by outside names see own keys only', () => {
  it('ownValue and recordOf', () => {
    const table: Record<string, number> = { a: 1 };
    for (const name of PROTOTYPE_NAMES) expect(ownValue(table, name)).toBeUndefined();
    expect(ownValue(table, 'a')).toBe(1);
    const rec = recordOf([['__proto__', 5] as const]);
    expect(Object.keys(rec)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(rec)).toBe(Object.prototype);
  });

  it('phrases a graph label named like a prototype member as words, never as native code', () => {
    for (const name of PROTOTYPE_NAMES) {
      const texts = [typeNoun(name), attrWords(name), dateClause(name, 'in 1990'), dateEvent(name, 'Juba'), unitText(name), relPhrase(name).sentence('X', 'Y'), relPhrase(name).onSubject('Y')];
      for (const text of texts) {
        expect(typeof text, name).toBe('string');
        expect(text, name).not.toMatch(/native code|\[object/);
      }
    }
  });

  it('fills only the template fields it was given', () => {
    expect(fillTemplate('http://h/s?q={query}&x={constructor}', { query: 'a b' })).toBe('http://h/s?q=a%20b&x={constructor}');
  });

  it('keeps a graph attribute named __proto__ an attribute', () => {
    const graph = validateGraph(
      { format: GRAPH_FORMAT, nodes: [{ id: 'n1', type: 'city', name: 'Juba', attrs: JSON.parse('{"__proto__": {"type": "string", "value": "x"}}') as unknown }], edges: [] },
      'g.json',
    );
    const attrs = graph.nodes[0]!.attrs;
    expect(Object.keys(attrs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
  });

  it('treats prototype names as unknown policy kinds', () => {
    for (const name of PROTOTYPE_NAMES) expect(() => resolvePolicy(`${name}:x`), name).toThrow(/not supported/);
  });
});

describe('the contract dispatch with prototype names', () => {
  let core: LabCore;
  beforeAll(async () => {
    core = await LabCore.open({ home: mkdtempSync(join(tmpdir(), 'sailor-proto-')), detectBackend: false });
  });
  afterAll(async () => core.close());

  it('answers unknown method / unknown kind (bad_request), never internal', async () => {
    for (const name of PROTOTYPE_NAMES) {
      await expect(core.call(name, {}), name).rejects.toMatchObject({ code: 'bad_request' });
      await expect(core.call('jobs.start', { kind: name, params: {} }), name).rejects.toMatchObject({ code: 'bad_request' });
      await expect(core.call('runs.start', { config: { model: { preset: name } } }), name).rejects.toMatchObject({ code: 'bad_request' });
    }
  });
});
