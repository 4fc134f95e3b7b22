// The on-disk formats of docs/formats.md as TypeScript types.
// One place for them: the lab core, the CLI, the renderer and the tests all import from here.
// Pure types and constants only (no Node, Electron or DOM imports) so the renderer can use them too.

export const GRAPH_FORMAT = 'sailor.graph/1';
export const QA_FORMAT = 'sailor.qa/1';
export const TRAJ_FORMAT = 'sailor.traj/1';

// ---------- sailor.graph/1 ----------

export type AttrValue =
  | { type: 'date'; value: string } // ISO YYYY, YYYY-MM or YYYY-MM-DD
  | { type: 'number'; value: number; unit?: string }
  | { type: 'string'; value: string };

/** Process metadata of graph construction: free-form but always present (may be `{}`). */
export type Meta = Record<string, unknown>;

export interface GraphNode {
  id: string;
  type: string; // snake_case
  name: string;
  aliases: string[];
  attrs: Record<string, AttrValue>;
  meta: Meta;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  relation: string; // snake_case
  meta: Meta;
}

export interface Graph {
  format: typeof GRAPH_FORMAT;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Optional header fields (how it was built); readers must not depend on them. */
  info?: Record<string, unknown>;
}

// ---------- sailor.qa/1 ----------

export type FilterOp = 'eq' | 'lt' | 'gt' | 'between' | 'prefix' | 'contains';

export interface QueryPattern {
  s: string; // variable (?x) or node id
  rel: string;
  o: string;
}

export interface QueryFilter {
  var: string;
  attr: string; // attribute name, or 'name', or 'type'
  op: FilterOp;
  value: string | number | [number, number];
}

export interface Query {
  answer: string;
  patterns: QueryPattern[];
  filters: QueryFilter[];
}

export interface Obfuscation {
  kind: string;
  target: string;
  from: string;
  to: string;
}

/**
 * How much one constraint of a QA narrows (docs/formats.md, 'sailor.qa/1'): the candidates its variable has
 * under it alone (`alone`, of `of` nodes of that type) and the candidates of the whole query without it
 * (`without`, at least 2 for every emitted constraint: each one removes a candidate).
 */
export interface NarrowingRecord {
  kind: string;
  target: string;
  text: string;
  of: number;
  alone: number;
  without: number;
}

export interface QA {
  id: string;
  question: string;
  answer: string;
  answer_id: string;
  aliases: string[];
  level: 1 | 2 | 3;
  graph: string;
  subgraph: { nodes: string[]; edges: string[] };
  wl_hash: string;
  orbit: number;
  topology: string;
  query: Query;
  obfuscations: Obfuscation[];
  distractors: string[];
  support: string[];
  candidates: number;
  /** Per injected constraint (distractors aside), how much it narrows; absent in files written before it existed. */
  narrowing?: NarrowingRecord[];
  /** The ASearcher generator's steps from the seed lookup (synth/asearcher.ts); absent for subgraph QAs. */
  steps?: QaStep[];
  /**
   * 'external': imported from a published set (`sailor import qa`): no graph query stands behind it (`query`
   * has no patterns), so `sailor check` skips it; the runtime still evaluates it by its answer and aliases.
   */
  source?: 'external';
  /** An imported QA's published fields other than question and answer (WebShaper's `formalization`, WebDancer's `tag`), given back on export. */
  original?: Record<string, unknown>;
  /**
   * What the LLM rewrite (`sailor synth --llm-url`) did to this question: `rewritten`, or why the rule text was
   * kept (`leaked_answer`, `changed_facts`, `too_long`, `empty`, `error`) with the refused rewrite or error in `detail`.
   */
  phrasing?: { outcome: string; detail?: string };
}

/** One step of the ASearcher generator: a fact injected about an entity, or a detail fuzzed. */
export interface QaStep {
  op: 'inject' | 'fuzz';
  /** The entity the step is about: its name while it was named, else its variable. */
  target: string;
  /** What the question said before ('' when the fact is new), and what it says now. */
  from: string;
  to: string;
  /** The facts behind the step: edge ids, or `${nodeId}.${attr}`. */
  support: string[];
}

/** Summary figures of a graph (kg/stats.ts graphStats): a graph artefact's `stats`, `sailor kg stats`. */
export interface GraphStats {
  nodes: number;
  edges: number;
  /** Connected components, ignoring edge direction. */
  components: number;
  /**
   * Cycle rank (circuit rank, first Betti number) = edges - nodes + components, over the undirected
   * multigraph: every edge counts, so two relations between the same pair (a city that is `located_in`
   * and `capital_of` its country) form a cycle, as does a self loop. It is the number of independent
   * cycles: 0 exactly when the graph is a forest.
   */
  cycle_rank: number;
  /** Nodes per type and edges per relation, keys sorted so the JSON is stable. */
  types: Record<string, number>;
  relations: Record<string, number>;
}

/** What a synthesis did (synth/build.ts): a dataset file header's `stats` and its artefact's. */
export interface SynthStats {
  requested: number;
  published: number;
  /** QA attempts (one per answer tried). */
  attempts: number;
  /** Distinct subgraph shapes drawn from the sampler. */
  shapes: number;
  /** QAs added beyond one per orbit to reach the exact count. */
  extras: number;
  tighten_steps: number;
  fragments_dropped_for_leak: number;
  rejections: Record<string, number>;
  topologies: Record<string, number>;
  kinds: Record<string, number>;
  levels: Record<string, number>;
  orbit_coverage: { hashes: number; orbits: number; covered: number };
  seconds: number;
  /** Which generator made the set; absent means 'subgraph'. */
  generator?: 'subgraph' | 'asearcher';
  /** The ASearcher generator's own figures (synth/asearcher.ts). */
  asearcher?: AsearcherStats;
}

export interface AsearcherStats {
  /** One-hop lookups started from. */
  seeds: number;
  /** Steps kept, by move. */
  injected: number;
  fuzzed: number;
  /** Moves the validator refused, by reason (the QA goes on without them). */
  step_rejections: Record<string, number>;
}

export interface QAHeader {
  format: typeof QA_FORMAT;
  [key: string]: unknown;
}

// ---------- sailor.traj/1 ----------

/**
 * How an episode ended. `policy_error` and `tool_error` are failures of the infrastructure (a policy that
 * could not load or answer, an LLM server that is down, a tool layer that threw), not of the model: they
 * are never counted as its format errors, and the trajectory's `error` field says what failed.
 */
export type Termination = 'answer' | 'max_steps' | 'max_tokens' | 'format_error' | 'policy_error' | 'tool_error';

export const TERMINATIONS: readonly Termination[] = ['answer', 'max_steps', 'max_tokens', 'format_error', 'policy_error', 'tool_error'];

const INFRASTRUCTURE_FAILURES: ReadonlySet<Termination> = new Set(['policy_error', 'tool_error']);

export function isInfrastructureFailure(termination: Termination): boolean {
  return INFRASTRUCTURE_FAILURES.has(termination);
}

export interface ToolAction {
  name: string; // search | visit | answer | …
  arguments: Record<string, unknown>;
}

export interface TrajStep {
  think: string;
  action: ToolAction;
  observation?: string;
  /** On a relabeled trajectory (run config `relabel`): the expert's label of the state before this step. */
  expert?: ExpertStepLabel;
  /** What the server said about the turn that produced this step (a model endpoint's policy). */
  llm?: LlmTurn;
}

/** The expert's next turn at a state the policy reached, as a relabeling round stores it beside the policy's action. */
export interface ExpertStepLabel {
  think: string;
  action: ToolAction;
  /** The kind of the expert's turn (first_search, visit, bridge_search, answer, …), null when none applies. */
  kind: string | null;
  /** The policy's action there was the expert's. */
  agrees: boolean;
  /** The expert reaches the right answer from this state: the label was trained on. */
  kept: boolean;
}

/**
 * One assistant turn of a model served over HTTP: the time the request took (retries included), the server's
 * own token counts (`usage`) and, where it returns them, each generated token with its log-probability.
 */
export interface LlmTurn {
  latency_ms: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  /** [token, log-probability] per generated token. */
  logprobs?: Array<[string, number]>;
}

export interface Reward {
  format: number;
  answer: number;
  total: number;
}

export interface Trajectory {
  id: string;
  qa_id: string;
  policy: string; // oracle | llm:<model> | ckpt:<run>/<step>
  steps: TrajStep[];
  prediction: string | null;
  termination: Termination;
  reward: Reward;
  tool_calls: number;
  tokens: { generated: number; observation: number };
  [extra: string]: unknown; // optional extensions: group id, advantage, policy version …
}

// ---------- run metrics ----------

/** One line of a run's metrics stream. Names: docs/formats.md, 'Runs and the data directory' (verl/TRL convention). */
export interface MetricRecord {
  step: number;
  time: string; // ISO timestamp
  metrics: Record<string, number>;
}
