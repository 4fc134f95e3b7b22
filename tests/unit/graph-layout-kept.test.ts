// A graph's computed layout kept with it (issue 45, part 2, point 6): saved beside the graph file, read back for
// the same nodes, refused with the numbers named when it does not fit, forgotten when the graph changes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArtefactReader } from '../../main/lab/app/artefacts';
import { writeGraphFile } from '../../main/lab/kg/io';
import type { StoreData } from '../../main/lab/store/db';
import { graphOf } from '../support/helpers';

function lab(nodes: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'layout-'));
  writeGraphFile(join(home, 'g.graph.json'), graphOf(nodes, [['a', 'knows', 'b']]));
  const data = { graphs: [{ id: 'g', name: 'g', path: 'g.graph.json', createdAt: '', info: {} }] } as unknown as StoreData;
  return { home, reader: new ArtefactReader(home, () => data) };
}

describe('a kept graph layout', () => {
  it('is none at first, then the saved x and y of each node, for any reader of the lab (a reload, another window)', () => {
    const { home, reader } = lab(['a:person', 'b:person', 'c:city']);
    expect(reader.layout('g')).toBeNull();
    expect(reader.saveLayout('g', [0, 1, 2, 3, 4, 5])).toEqual({ nodes: 3 });
    expect(reader.layout('g')).toEqual({ nodes: 3, xy: [0, 1, 2, 3, 4, 5] });
    const data = { graphs: [{ id: 'g', name: 'g', path: 'g.graph.json', createdAt: '', info: {} }] } as unknown as StoreData;
    expect(new ArtefactReader(home, () => data).layout('g')).toEqual({ nodes: 3, xy: [0, 1, 2, 3, 4, 5] });
  });

  it('is refused when it does not fit the graph, naming the numbers', () => {
    const { reader } = lab(['a:person', 'b:person']);
    expect(() => reader.saveLayout('g', [0, 1, 2])).toThrow('xy: graph g has 2 nodes, so a layout has 4 numbers (x then y of each); got 3');
    expect(reader.layout('g')).toBeNull();
  });

  it('is forgotten when the graph no longer has those nodes', () => {
    const { home, reader } = lab(['a:person', 'b:person']);
    reader.saveLayout('g', [0, 1, 2, 3]);
    writeGraphFile(join(home, 'g.graph.json'), graphOf(['a:person', 'b:person', 'c:city'], [['a', 'knows', 'b']]));
    expect(new ArtefactReader(home, () => ({ graphs: [{ id: 'g', name: 'g', path: 'g.graph.json', createdAt: '', info: {} }] }) as unknown as StoreData).layout('g')).toBeNull();
  });
});
