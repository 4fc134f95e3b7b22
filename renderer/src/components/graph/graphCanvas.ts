// What the Graph explorer draws, apart from the view: the cytoscape elements and stylesheet of a graph,
// and the view state (step, explore set, cycles, type highlight, selection) applied to a drawn canvas
// as classes, never as a new layout (a relayout of thousands of nodes would take seconds).
import type { Core, ElementDefinition, LayoutOptions, StylesheetJson } from 'cytoscape';
import type { LoadedGraph, Selection } from '../../stores/graph';
import { stepOf } from '../../stores/graph';
import { THEME } from '../../util/palette';
import type { Position } from '../../util/forceLayout';

/** Above this many nodes the labels shrink and edges are straight (bezier curves cost too much to draw). */
const BIG = 400;
/** Relation labels go on every shown edge while at most this many are shown in explore mode. */
const LABELLED_EDGES = 40;

/** Positions come from our own layout (util/forceLayout.ts): cytoscape only draws them. */
export const PRESET_LAYOUT: LayoutOptions = { name: 'preset', fit: true, padding: 30 };

export function graphElements(g: LoadedGraph, pos: ReadonlyMap<string, Position>): ElementDefinition[] {
  const nodes: ElementDefinition[] = g.view.graph.nodes.map((n) => ({
    group: 'nodes',
    data: { id: n.id, label: n.name, type: n.type, color: g.index.colorOf.get(n.type), step: stepOf(n.meta) },
    position: { ...(pos.get(n.id) ?? { x: 0, y: 0 }) },
  }));
  const edges: ElementDefinition[] = g.view.graph.edges
    .filter((e) => g.index.byId.has(e.source) && g.index.byId.has(e.target))
    .map((e) => ({ group: 'edges', data: { id: e.id, source: e.source, target: e.target, rel: e.relation, step: stepOf(e.meta) } }));
  return [...nodes, ...edges];
}

export function graphStylesheet(nodeCount: number): StylesheetJson {
  const big = nodeCount > BIG;
  return [
    {
      selector: 'node',
      style: {
        'background-color': 'data(color)',
        label: 'data(label)',
        color: THEME.text,
        'font-size': big ? 9 : 10,
        'min-zoomed-font-size': big ? 9 : 6,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'text-outline-color': THEME.bg,
        'text-outline-width': 2,
        'text-wrap': 'ellipsis',
        'text-max-width': '110px',
        width: 14,
        height: 14,
        'border-width': 0,
      },
    },
    {
      selector: 'edge',
      style: {
        width: 1.2,
        'line-color': '#3d4b5a',
        'target-arrow-color': '#3d4b5a',
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.6,
        'curve-style': big ? 'straight' : 'bezier',
        'font-size': 8,
        color: THEME.muted,
        'text-rotation': 'autorotate',
        'text-outline-color': THEME.bg,
        'text-outline-width': 2,
        'min-zoomed-font-size': 7,
      },
    },
    { selector: 'edge.lbl', style: { label: 'data(rel)' } },
    { selector: 'node.nb', style: { 'border-width': 2, 'border-color': THEME.accent } },
    { selector: 'edge.inc', style: { 'line-color': THEME.accent, 'target-arrow-color': THEME.accent, width: 2, label: 'data(rel)', color: THEME.text, 'z-index': 5 } },
    { selector: 'edge.hl', style: { 'line-color': THEME.hot, 'target-arrow-color': THEME.hot, width: 2.6, opacity: 1 } },
    { selector: 'edge.dim', style: { opacity: 0.12 } },
    { selector: 'node.dim', style: { opacity: 0.25 } },
    { selector: 'node.type-hi', style: { 'border-width': 2, 'border-color': '#ffffff' } },
    { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#ffffff', width: 20, height: 20, 'font-size': 12, 'font-weight': 'bold', 'z-index': 10, opacity: 1 } },
    { selector: 'edge:selected', style: { 'line-color': '#ffffff', 'target-arrow-color': '#ffffff', width: 3, label: 'data(rel)', color: THEME.text, opacity: 1, 'z-index': 10 } },
    { selector: '.hidden', style: { display: 'none' } },
  ];
}

/**
 * Hides what the expansion had not found by `step`, and in explore mode every node outside `explored`.
 * Relation labels go on every edge while few are shown; otherwise only the selection's edges carry them.
 */
export function applyVisibility(cy: Core, step: number, explored: ReadonlySet<string> | null, shownEdges: number): void {
  cy.batch(() => {
    cy.nodes().forEach((n) => {
      n.toggleClass('hidden', (n.data('step') as number) > step || (explored !== null && !explored.has(n.id())));
    });
    cy.edges().forEach((e) => void e.toggleClass('hidden', (e.data('step') as number) > step));
  });
  const labels = explored !== null && shownEdges <= LABELLED_EDGES;
  cy.batch(() => {
    cy.edges().forEach((e) => void e.toggleClass('lbl', labels));
  });
}

/** Cycle edges bright and the rest dim (`cycles`), and one node type outlined with the rest dim (`type`). */
export function applyHighlight(cy: Core, cycleEdges: ReadonlySet<string>, cycles: boolean, type: string | null): void {
  cy.batch(() => {
    const onCycle = new Set<string>();
    cy.edges().forEach((e) => {
      const c = cycleEdges.has(e.id());
      e.toggleClass('hl', cycles && c);
      e.toggleClass('dim', (cycles && !c) || (type !== null && e.source().data('type') !== type && e.target().data('type') !== type));
      if (c) {
        onCycle.add(e.data('source') as string);
        onCycle.add(e.data('target') as string);
      }
    });
    cy.nodes().forEach((n) => {
      const t = n.data('type') as string;
      n.toggleClass('dim', (cycles && !onCycle.has(n.id())) || (type !== null && t !== type));
      n.toggleClass('type-hi', type !== null && t === type);
    });
  });
}

/** The selected node's neighbours outlined and its edges labelled. */
export function markNeighbourhood(cy: Core, sel: Selection | null): void {
  cy.batch(() => {
    cy.elements('.nb, .inc').removeClass('nb inc');
    if (sel?.kind !== 'node') return;
    const n = cy.getElementById(sel.id);
    if (n.empty()) return;
    n.connectedEdges().addClass('inc');
    n.neighborhood('node').addClass('nb');
  });
}

/**
 * Explore mode lays out only the explored nodes, in rings by distance from where exploring started (a
 * few dozen nodes: instant), animated; `done` runs when it stops.
 */
export function layoutExplored(cy: Core, explored: ReadonlySet<string>, rootId: string | null, done: () => void): void {
  const nodes = cy.nodes().filter((n) => explored.has(n.id()));
  const eles = nodes.union(nodes.edgesWith(nodes));
  const depth = new Map<string, number>();
  const root = cy.getElementById(rootId ?? '');
  if (root.nonempty()) eles.bfs({ roots: root, directed: false, visit: (v, _e, _u, _i, d) => void depth.set(v.id(), d) });
  const far = Math.max(0, ...depth.values()) + 1;
  cy.stop();
  eles
    .layout({
      name: 'concentric',
      concentric: (n) => far - (depth.get(n.id()) ?? far),
      levelWidth: () => 1,
      minNodeSpacing: 34,
      avoidOverlap: true,
      fit: true,
      padding: 40,
      animate: true,
      animationDuration: 250,
      stop: done,
    })
    .run();
}

/** Animates the view onto the shown elements (all of them when none is shown). */
export function fitShown(cy: Core): void {
  const eles = cy.elements().not('.hidden');
  cy.stop();
  cy.animate({ fit: { eles: eles.nonempty() ? eles : cy.elements(), padding: 40 } }, { duration: 250 });
}

/** Centres a shown node, zooming in to at least 1.1. */
export function centreOn(cy: Core, id: string): void {
  const n = cy.getElementById(id);
  if (n.empty() || n.hidden()) return;
  cy.stop();
  cy.animate({ center: { eles: n }, zoom: Math.max(cy.zoom(), 1.1) }, { duration: 250 });
}
