// Reading and writing sailor.graph/1 files (docs/formats.md, 'sailor.graph/1'). The reader checks the whole structure
// and names the file and the exact field of the first problem, e.g.
//   g.json: nodes[12].attrs.population.value: expected a finite number, got "12k"
// so a hand-edited or foreign graph fails loudly instead of deep inside synthesis.
import type { AttrValue, Graph, GraphEdge, GraphNode } from '../formats/index';
import { GRAPH_FORMAT } from '../formats/index';
import { Fields, describeValue } from '../util/fields';
import { recordOf } from '../util/own';
import { readJsonFile, writeJsonAtomic } from '../store/files';

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const ISO_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

const describe = describeValue;

/** True for `YYYY`, `YYYY-MM`, `YYYY-MM-DD` with a real month and a day that exists in that month. */
export function isIsoDate(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  if (m[2] === undefined) return true;
  const month = Number(m[2]);
  if (month < 1 || month > 12) return false;
  if (m[3] === undefined) return true;
  const day = Number(m[3]);
  const daysInMonth = new Date(Date.UTC(Number(m[1]), month, 0)).getUTCDate();
  return day >= 1 && day <= daysInMonth;
}

/** The graph's fields on top of the shared checker (errors name file and field path). */
class Checker extends Fields {
  label(value: unknown, field: string): string {
    const text = this.str(value, field);
    if (!SNAKE_CASE.test(text)) throw this.fail(field, `must be a snake_case label, got ${describe(text)}`);
    return text;
  }

  attr(value: unknown, field: string): AttrValue {
    const a = this.obj(value, field);
    const type = a.type;
    if (type === 'number') {
      if (typeof a.value !== 'number' || !Number.isFinite(a.value)) throw this.fail(`${field}.value`, `expected a finite number, got ${describe(a.value)}`);
      if (a.unit !== undefined) this.str(a.unit, `${field}.unit`, false);
      return a.unit === undefined ? { type, value: a.value } : { type, value: a.value, unit: a.unit as string };
    }
    if (type === 'date') {
      const text = this.str(a.value, `${field}.value`, false);
      if (!isIsoDate(text)) throw this.fail(`${field}.value`, `expected an ISO date YYYY, YYYY-MM or YYYY-MM-DD, got ${describe(text)}`);
      return { type, value: text };
    }
    if (type === 'string') return { type, value: this.str(a.value, `${field}.value`, false) };
    throw this.fail(`${field}.type`, `expected "date", "number" or "string", got ${describe(type)}`);
  }

  node(value: unknown, field: string): GraphNode {
    const n = this.obj(value, field);
    const id = this.str(n.id, `${field}.id`);
    const type = this.label(n.type, `${field}.type`);
    const name = this.str(n.name, `${field}.name`, false);
    // aliases, attrs and meta are always written; a reader accepts their absence as empty.
    const aliases: string[] = [];
    if (n.aliases !== undefined) {
      if (!Array.isArray(n.aliases)) throw this.fail(`${field}.aliases`, `expected an array of strings, got ${describe(n.aliases)}`);
      n.aliases.forEach((a, i) => aliases.push(this.str(a, `${field}.aliases[${i}]`, false)));
    }
    // recordOf: an attribute named __proto__ stays an attribute instead of replacing the object's prototype.
    const attrs: Record<string, AttrValue> =
      n.attrs === undefined ? {} : recordOf(Object.entries(this.obj(n.attrs, `${field}.attrs`)).map(([key, raw]) => [key, this.attr(raw, `${field}.attrs.${key}`)] as const));
    const meta = n.meta === undefined ? {} : this.obj(n.meta, `${field}.meta`);
    return { id, type, name, aliases, attrs, meta };
  }

  edge(value: unknown, field: string): GraphEdge {
    const e = this.obj(value, field);
    const id = this.str(e.id, `${field}.id`);
    const source = this.str(e.source, `${field}.source`);
    const target = this.str(e.target, `${field}.target`);
    const relation = this.label(e.relation, `${field}.relation`);
    const meta = e.meta === undefined ? {} : this.obj(e.meta, `${field}.meta`);
    return { id, source, target, relation, meta };
  }
}

/**
 * Checks that `value` is a sailor.graph/1 graph and returns it normalised (missing aliases, attrs and
 * meta become empty). `file` names the origin in error messages. Throws LabError('bad_input').
 */
export function validateGraph(value: unknown, file: string): Graph {
  const c = new Checker(file);
  const root = c.obj(value, '');
  if (root.format !== GRAPH_FORMAT) throw c.fail('format', `expected "${GRAPH_FORMAT}", got ${describe(root.format)}`);
  if (!Array.isArray(root.nodes)) throw c.fail('nodes', `expected an array, got ${describe(root.nodes)}`);
  if (!Array.isArray(root.edges)) throw c.fail('edges', `expected an array, got ${describe(root.edges)}`);
  /** Records that `list[i]` has this id; throws when an earlier entry of the list has it already. */
  const claimId = (seen: Map<string, number>, list: 'nodes' | 'edges', id: string, i: number): void => {
    const first = seen.get(id);
    if (first !== undefined) throw c.fail(`${list}[${i}].id`, `duplicate ${list === 'nodes' ? 'node' : 'edge'} id ${describe(id)} (first used by ${list}[${first}])`);
    seen.set(id, i);
  };
  const nodes: GraphNode[] = [];
  const nodeIndex = new Map<string, number>();
  root.nodes.forEach((raw, i) => {
    const node = c.node(raw, `nodes[${i}]`);
    claimId(nodeIndex, 'nodes', node.id, i);
    nodes.push(node);
  });
  const edges: GraphEdge[] = [];
  const edgeIndex = new Map<string, number>();
  root.edges.forEach((raw, i) => {
    const edge = c.edge(raw, `edges[${i}]`);
    claimId(edgeIndex, 'edges', edge.id, i);
    for (const end of ['source', 'target'] as const) {
      if (!nodeIndex.has(edge[end])) throw c.fail(`edges[${i}].${end}`, `points at node ${describe(edge[end])}, which is not in nodes`);
    }
    edges.push(edge);
  });
  const graph: Graph = { format: GRAPH_FORMAT, nodes, edges };
  if (root.info !== undefined) graph.info = c.obj(root.info, 'info');
  return graph;
}

/** Reads and validates a sailor.graph/1 file. Errors name the file and the field (exit 2 in the CLI). */
export function readGraphFile(path: string): Graph {
  return validateGraph(readJsonFile(path), path);
}

/** Writes a graph atomically (readers never see half a file), pretty-printed for people and diffs. */
export function writeGraphFile(path: string, graph: Graph): void {
  writeJsonAtomic(path, graph, true);
}
