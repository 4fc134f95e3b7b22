// A hand-built graph and QAs small enough to check by eye: the tests, the CLI examples and the app's empty
// state use them. Moscow is the birthplace of two founders whose companies both start with F, so the
// level-3 question needs the inception range to tell them apart (a counterfactual distractor).
import type { Graph, GraphEdge, GraphNode, QA } from '../formats/index';

const node = (id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}, aliases: string[] = []): GraphNode => ({
  id,
  type,
  name,
  aliases,
  attrs,
  meta: {},
});

const edge = (id: string, source: string, relation: string, target: string): GraphEdge => ({ id, source, target, relation, meta: {} });

export function demoGraph(): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: [
      node('n1', 'company', 'FormFactor', {
        inception: { type: 'date', value: '1993-04-01' },
        employees: { type: 'number', value: 2100, unit: 'people' },
        state: { type: 'string', value: 'Delaware' },
      }, ['FormFactor, Inc.']),
      node('n2', 'person', 'Igor Khandros', { birth_date: { type: 'date', value: '1954' } }),
      node('n3', 'city', 'Moscow', { population: { type: 'number', value: 13000000 } }),
      node('n4', 'company', 'Fabrikam Labs', {
        inception: { type: 'date', value: '2001-06' },
        employees: { type: 'number', value: 300, unit: 'people' },
      }),
      node('n5', 'person', 'Felix Brandt', { birth_date: { type: 'date', value: '1960-02-11' } }),
      node('n6', 'city', 'Livermore'),
      node('n7', 'company', 'Flexion Systems', { inception: { type: 'date', value: '1990' } }),
      node('n8', 'country', 'Russia'),
      node('n9', 'person', 'Anna Petrova', { birth_date: { type: 'date', value: '1971' } }),
      node('n10', 'city', 'Kazan'),
    ],
    edges: [
      edge('e1', 'n1', 'founded_by', 'n2'),
      edge('e2', 'n2', 'born_in', 'n3'),
      edge('e3', 'n1', 'headquartered_in', 'n6'),
      edge('e4', 'n4', 'founded_by', 'n5'),
      edge('e5', 'n5', 'born_in', 'n3'),
      edge('e6', 'n3', 'located_in', 'n8'),
      edge('e7', 'n7', 'founded_by', 'n9'),
      edge('e8', 'n9', 'born_in', 'n10'),
      edge('e9', 'n10', 'located_in', 'n8'),
      edge('e10', 'n2', 'citizen_of', 'n8'),
      edge('e11', 'n4', 'headquartered_in', 'n6'),
    ],
  };
}

const base = {
  graph: 'demo',
  subgraph: { nodes: [], edges: [] },
  wl_hash: '',
  orbit: 0,
  topology: 'path',
  obfuscations: [],
  distractors: [],
  support: [],
  candidates: 1,
};

export function demoQAs(): QA[] {
  return [
    {
      ...base,
      id: 'qa-demo-1',
      question: 'Which company was founded by Igor Khandros?',
      answer: 'FormFactor',
      answer_id: 'n1',
      aliases: ['FormFactor, Inc.'],
      level: 1,
      query: { answer: '?a', patterns: [{ s: '?a', rel: 'founded_by', o: 'n2' }], filters: [] },
    },
    {
      ...base,
      id: 'qa-demo-2',
      question:
        'A company whose name starts with F was founded some time between 1988 and 1995 by someone born in Moscow. Which company is it?',
      answer: 'FormFactor',
      answer_id: 'n1',
      aliases: ['FormFactor, Inc.'],
      level: 3,
      query: {
        answer: '?a',
        patterns: [
          { s: '?a', rel: 'founded_by', o: '?b' },
          { s: '?b', rel: 'born_in', o: 'n3' },
        ],
        filters: [
          { var: '?a', attr: 'name', op: 'prefix', value: 'F' },
          { var: '?a', attr: 'inception', op: 'between', value: [1988, 1995] },
          { var: '?a', attr: 'type', op: 'eq', value: 'company' },
        ],
      },
      distractors: ['n4'],
    },
    {
      ...base,
      id: 'qa-demo-3',
      question: 'Who was born in a Russian city other than Moscow and has a name starting with A?',
      answer: 'Anna Petrova',
      answer_id: 'n9',
      aliases: [],
      level: 2,
      query: {
        answer: '?p',
        patterns: [
          { s: '?p', rel: 'born_in', o: '?c' },
          { s: '?c', rel: 'located_in', o: 'n8' },
        ],
        filters: [{ var: '?p', attr: 'name', op: 'prefix', value: 'A' }],
      },
    },
  ];
}
