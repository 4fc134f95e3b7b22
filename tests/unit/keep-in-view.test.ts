// A clicked neighbour kept in view without losing the context (issue 45, part 2, point 6): hand-checked pans.
import { describe, expect, it } from 'vitest';
import { panToShow } from '../../renderer/src/components/graph/keepInView';

const view = { x1: 0, y1: 0, x2: 1000, y2: 600 };

describe('panToShow', () => {
  it('does not move when the node is inside the view less the margin', () => {
    expect(panToShow({ x: 500, y: 300 }, view, 50)).toEqual({ dx: 0, dy: 0 });
    expect(panToShow({ x: 50, y: 550 }, view, 50)).toEqual({ dx: 0, dy: 0 });
  });

  it('moves only as far as the margin: a node 30 left of the view and 20 below it', () => {
    // x -30 must reach 0 + 50: +80; y 620 must reach 600 - 50: -70.
    expect(panToShow({ x: -30, y: 620 }, view, 50)).toEqual({ dx: 80, dy: -70 });
    expect(panToShow({ x: 990, y: 10 }, view, 50)).toEqual({ dx: -40, dy: 40 });
  });

  it('centres on an axis narrower than two margins', () => {
    expect(panToShow({ x: 500, y: 0 }, { x1: 0, y1: 0, x2: 1000, y2: 80 }, 50)).toEqual({ dx: 0, dy: 40 });
  });
});
