// The graph view's labels by level of detail: hand-placed nodes, the labels picked and why.
import { describe, expect, it } from 'vitest';
import { labelWidth, NEIGHBOUR, pickLabels, SELECTED, type LabelCandidate } from '../../renderer/src/components/graph/labelLod';

const rules = { width: 800, height: 600, lineHeight: 16, offsetY: 8, cap: 100, always: NEIGHBOUR, readable: true };
const at = (id: string, x: number, y: number, priority: number, width = 60): LabelCandidate => ({ id, x, y, width, priority });

describe('pickLabels', () => {
  it('labels the bigger of two nodes whose labels would overlap, and both when they are apart', () => {
    expect(pickLabels([at('small', 100, 100, 2), at('big', 110, 104, 9)], rules)).toEqual(new Set(['big']));
    expect(pickLabels([at('small', 100, 100, 2), at('big', 300, 100, 9)], rules)).toEqual(new Set(['small', 'big']));
    // Side by side: 60-pixel labels 61 pixels apart do not overlap; 59 apart they do.
    expect(pickLabels([at('a', 100, 100, 2), at('b', 161, 100, 1)], rules).size).toBe(2);
    expect(pickLabels([at('a', 100, 100, 2), at('b', 159, 100, 1)], rules).size).toBe(1);
  });

  it('puts the selection and its neighbours first, whatever their degree', () => {
    const picked = pickLabels([at('hub', 100, 100, 500), at('nb', 105, 100, NEIGHBOUR + 1), at('sel', 400, 300, SELECTED), at('hub2', 402, 301, 400)], rules);
    expect(picked).toEqual(new Set(['nb', 'sel']));
  });

  it('labels nothing off screen, at most `cap`, and only the selection’s when the font is unreadable', () => {
    const grid = Array.from({ length: 50 }, (_, i) => at(`n${i}`, 40 + (i % 10) * 80, 40 + Math.floor(i / 10) * 60, i));
    expect(pickLabels([...grid, at('off', -5, 100, 1000), at('below', 100, 700, 1000)], rules).size).toBe(50);
    expect(pickLabels(grid, { ...rules, cap: 7 })).toEqual(new Set(['n49', 'n48', 'n47', 'n46', 'n45', 'n44', 'n43']));
    expect(pickLabels([...grid, at('sel', 500, 500, SELECTED), at('nb', 700, 500, NEIGHBOUR)], { ...rules, readable: false })).toEqual(new Set(['sel', 'nb']));
  });

  it('sizes a label at 0.6 em a character, capped at the stylesheet’s widest', () => {
    expect(labelWidth('Franz Kafka', 10, 110)).toBeCloseTo(66);
    expect(labelWidth('x'.repeat(40), 10, 110)).toBe(110);
  });
});
