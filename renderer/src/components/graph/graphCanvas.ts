// What the Graph explorer draws, apart from the view: the cytoscape elements and stylesheet of a graph,
// and the view state (step, explore set, cycles, type highlight, selection) applied to a drawn canvas
// as classes, never as a new layout (a relayout of thousands of nodes would take seconds).
import { exploreRings } from './exploreRings';
import { panToShow } from './keepInView';
import type { Core, ElementDefinition, LayoutOptions, StylesheetJson } from 'cytoscape';
import type { LoadedGraph, Selection } from '../../stores/graph';
import { stepOf } from '../../stores/graph';
import { THEME } from '../../util/palette';
import type { Position } from '../../util/forceLayout';

/** Above this many nodes the labels shrink and edges are straight (bezier curves cost too much to draw). */
const BIG = 400;
/** Above this many edges, edges are drawn as haystack lines without arrows (the cheapest cytoscape draws); the selection's keep theirs. */
const HAYSTACK_EDGES = 3000;
/** A node label's font size (model pixels) and widest box, as the stylesheet draws them (labelLod.ts measures with them). */
export const LABEL_FONT = { small: 10, big: 9, selected: 12, maxWidth: 110 } as const;
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

/** `lod` false: as before level of detail (every label, arrows on every edge), for bench/speed/graph-view.ts to compare. */
export function graphStylesheet(nodeCount: number, edgeCount = 0, lod = true): StylesheetJson {
  const big = nodeCount > BIG;
  const haystack = lod && edgeCount > HAYSTACK_EDGES;
  return [
    {
      selector: 'node',
      style: {
        'background-color': 'data(color)',
        // Only the labels labelLod.ts picks are drawn (class lbl): the rest would overlap into a hairball.
        label: '',
        color: THEME.text,
        'font-size': big ? LABEL_FONT.big : LABEL_FONT.small,
        'min-zoomed-font-size': lod ? 6 : big ? 9 : 6,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'text-outline-color': THEME.bg,
        'text-outline-width': 2,
        // Room around the text in its bounds: cytoscape caches a zoomed-out label as a texture sized from the
        // text measured at full size, and small glyphs come out wider, so without it "Franz Kafka" drew as "ranz Kafk".
        'text-background-padding': '4px',
        'text-wrap': 'ellipsis',
        'text-max-width': `${LABEL_FONT.maxWidth}px`,
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
        'curve-style': haystack ? 'haystack' : big ? 'straight' : 'bezier',
        ...(haystack ? { 'haystack-radius': 0, opacity: 0.8 } : {}),
        'font-size': 8,
        color: THEME.muted,
        'text-rotation': 'autorotate',
        'text-outline-color': THEME.bg,
        'text-outline-width': 2,
        'min-zoomed-font-size': 7,
      },
    },
    { selector: 'node.lbl', style: { label: 'data(label)' } },
    { selector: 'edge.lbl', style: { label: 'data(rel)' } },
    // A selected node's neighbourhood in front, everything else faded (markNeighbourhood).
    { selector: '.faded', style: { opacity: 0.12, 'z-index': 0 } },
    { selector: 'node.nb', style: { 'border-width': 2, 'border-color': THEME.accent, 'z-index': 8, opacity: 1 } },
    {
      selector: 'edge.inc',
      style: { 'curve-style': 'straight', 'line-color': THEME.accent, 'target-arrow-color': THEME.accent, width: 2, label: 'data(rel)', color: THEME.text, 'z-index': 5, opacity: 1 },
    },
    // A hub's hundreds of edges: their relation labels would only pile up over the neighbours' names.
    { selector: 'edge.inc.many', style: { label: '' } },
    { selector: 'edge.hl', style: { 'line-color': THEME.hot, 'target-arrow-color': THEME.hot, width: 2.6, opacity: 1 } },
    { selector: 'edge.dim', style: { opacity: 0.12 } },
    { selector: 'node.dim', style: { opacity: 0.25 } },
    { selector: 'node.type-hi', style: { 'border-width': 2, 'border-color': '#ffffff' } },
    {
      selector: 'node:selected',
      style: { 'border-width': 3, 'border-color': '#ffffff', width: 20, height: 20, 'font-size': LABEL_FONT.selected, 'font-weight': 'bold', 'z-index': 10, opacity: 1 },
    },
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

/**
 * The selected node's neighbourhood brought forward: its neighbours outlined, its edges labelled, everything
 * else faded. Returns the neighbours' ids (the label picker labels them first).
 */
export function markNeighbourhood(cy: Core, sel: Selection | null): Set<string> {
  const ids = new Set<string>();
  cy.batch(() => {
    cy.elements('.nb, .inc, .faded').removeClass('nb inc many faded');
    if (sel?.kind !== 'node') return;
    const n = cy.getElementById(sel.id);
    if (n.empty()) return;
    const edges = n.connectedEdges();
    const nodes = n.neighborhood('node');
    edges.addClass(edges.length > LABELLED_EDGES ? 'inc many' : 'inc');
    nodes.addClass('nb');
    nodes.forEach((x) => void ids.add(x.id()));
    cy.elements().difference(edges.union(nodes).union(n)).addClass('faded');
  });
  return ids;
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
  // Rings that hold more the further out they are (exploreRings.ts): a hub's neighbours stay close enough to label.
  const ring = exploreRings(nodes.nodes().map((n) => ({ id: n.id(), depth: depth.get(n.id()) ?? Infinity, degree: n.degree(false) })));
  const outer = Math.max(0, ...ring.values()) + 1;
  cy.stop();
  eles
    .layout({
      name: 'concentric',
      concentric: (n) => outer - (ring.get(n.id()) ?? outer),
      levelWidth: () => 1,
      minNodeSpacing: 10,
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

/**
 * Centres a shown node with its neighbourhood in view: zoomed to fit the neighbourhood, at least far enough
 * in that labels are legible (1.1), at most 2 (beyond that, neighbours' labels only pile up; the label
 * picker keeps them apart).
 */
export function centreOn(cy: Core, id: string): void {
  const n = cy.getElementById(id);
  if (n.empty() || n.hidden()) return;
  const hood = n.closedNeighborhood().not('.hidden');
  const bb = hood.boundingBox({ includeLabels: false });
  const fit = Math.min(cy.width() / Math.max(1, bb.w + 160), cy.height() / Math.max(1, bb.h + 160));
  cy.stop();
  cy.animate({ center: { eles: n }, zoom: Math.min(2, Math.max(1.1, Math.min(fit, Math.max(cy.zoom(), 1.1)))) }, { duration: 250 });
}

/**
 * Keeps a clicked node in view without losing the context: no move when it is inside the view already (a
 * neighbour of the selection usually is), else the smallest pan that brings it in (keepInView.ts). The zoom stays.
 */
export function bringIntoView(cy: Core, id: string): void {
  const n = cy.getElementById(id);
  if (n.empty() || n.hidden()) return;
  const margin = 60 / cy.zoom(); // 60 screen pixels, in model units
  const { dx, dy } = panToShow(n.position(), cy.extent(), margin);
  if (dx === 0 && dy === 0) return;
  cy.stop();
  // rendered = model × zoom + pan: moving the node by (dx, dy) model units is a pan of that times the zoom.
  cy.animate({ panBy: { x: dx * cy.zoom(), y: dy * cy.zoom() } }, { duration: 200 });
}
