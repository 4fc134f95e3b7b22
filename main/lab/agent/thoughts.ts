// Reasoning reconstruction for RFT data (see docs/pipeline.md, 'RFT cold start'): the expert's own thoughts are
// dropped and a short thought per step is written from (history, action, observation), by rules (ruleThought,
// terseThought) or by an LLM through the chat adapter. No thought states what only the step's own result
// reveals, so a policy trained on them does not learn to predict observations.
import type { ToolAction, Trajectory } from '../formats/index';
import type { Rng } from '../util/rng';
import type { AgentStep } from './react';

export interface ReconstructInput {
  question: string;
  history: readonly AgentStep[]; // steps before t, with their (reconstructed) thoughts
  action: ToolAction;
  observation: string | undefined;
  rng?: Rng;
}

export type Reconstructor = (input: ReconstructInput) => Promise<string>;

/** One of several phrasings: a random one with an RNG, else a fixed one by `salt` (reproducible without one). */
export function pickPhrase<T>(rng: Rng | undefined, items: readonly T[], salt: number): T {
  return rng ? rng.pick(items) : items[salt % items.length]!;
}

function titlesIn(obs: string | undefined): string[] {
  if (!obs) return [];
  const out: string[] = [];
  for (const m of obs.matchAll(/^\d+\. \[(.*)\]\(\S+\)$/gm)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

/** "a", "a and b", "a, b and c". */
export function phraseList(xs: readonly string[]): string {
  if (xs.length <= 1) return xs[0] ?? '';
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/**
 * The rule-based reconstructor: a short thought justifying a_t from the history. It uses the previous
 * observation (titles that motivate a visit) but never states facts that only o_t reveals, so a model
 * trained on it does not learn to predict observations.
 */
export function ruleThought(input: ReconstructInput): string {
  const { action, history, rng } = input;
  const t = history.length;
  const prev = history[t - 1];
  if (action.name === 'search') {
    const qs = (action.arguments.query as string[] | undefined) ?? [];
    const quoted = phraseList(qs.map((q) => `"${q.length > 60 ? `${q.slice(0, 57)}…` : q}"`));
    // Only short, capitalised queries found in the question are names it gives; the question's own words or
    // type words ("language family") searched for lack of a name are not, and the thought must not claim so.
    const isGivenName = (q: string): boolean => q.split(/\s+/).length <= 6 && /^\p{Lu}/u.test(q) && input.question.toLowerCase().includes(q.toLowerCase());
    if (t === 0 && qs.length > 0 && qs.every(isGivenName)) {
      return pickPhrase(rng, [
        `The question names ${quoted} outright, so that is the firmest starting point: find its page and what links to it.`,
        `Of all the clues, ${quoted} is the one concrete name. I'll search for it first.`,
      ], t);
    }
    if (t === 0) {
      return pickPhrase(rng, [
        `The question describes its target only through linked clues, so I need a starting point. Searching for ${quoted} should surface candidate pages.`,
        `Nothing here can be answered from memory with confidence; I'll begin by searching ${quoted} and see which entities come up.`,
        `First I need concrete pages to work from. Let me search ${quoted}.`,
      ], t);
    }
    const noPage = prev?.observation?.includes('could not be accessed') ? 'That page was not available. ' : '';
    return noPage + pickPhrase(rng, [
      `To follow the next clue I'll search ${quoted}.`,
      `This link is still open. A search for ${quoted} should reveal the connected entities.`,
      `Next I need pages for ${quoted}; a search gives their addresses and a first snippet.`,
      `Let me search ${quoted} to widen the set of candidates.`,
      `I'll query ${quoted} and compare what comes back with the clues.`,
    ], t);
  }
  if (action.name === 'visit') {
    const urls = (action.arguments.url as string[] | undefined) ?? [];
    const goal = String(action.arguments.goal ?? '');
    const titles = titlesIn(prev?.observation).slice(0, 3);
    const from = prev?.action.name === 'search' && titles.length ? `The results mention ${phraseList(titles)}. ` : '';
    // The goal's items as short terms ("has official language", "longitude"), not the goal verbatim.
    const items = (goal.split(/: |find |for /).pop() ?? '').replace(/\.$/, '').split(/, | and /).map((x) =>
      x.replace(/^what kind of entity it is$/, 'type').replace(/^(what it |what |its )/, '').replace(/ it$/, '').trim(),
    ).filter(Boolean);
    const terms = phraseList(rng ? rng.shuffle([...items]) : items) || 'the details';
    const pages = urls.length > 1 ? `these ${urls.length} pages` : 'this page';
    if (t === 0) return `The question is anchored on a specific entity, so its page is the natural starting point; I want its ${terms}.`;
    return from + pickPhrase(rng, [
      `Reading ${pages} should settle the ${terms}.`,
      `I'll open ${pages}; snippets alone cannot verify ${terms}.`,
      `Next, ${pages}: I need to check ${terms}.`,
      `Visiting ${pages} to confirm ${terms}.`,
      `The conditions involve ${terms}, so I'll read ${pages}.`,
    ], t);
  }
  if (action.name === 'answer') {
    const a = String(action.arguments.answer ?? '');
    return pickPhrase(rng, [
      `Cross-checking what the pages said against every condition in the question, ${a} is the one entity that fits them all.`,
      `The evidence collected connects all the clues, and only ${a} satisfies each constraint. I'm confident in this answer.`,
      `Every clue now points the same way: ${a}.`,
    ], t);
  }
  return 'I will continue with the next step.';
}

export const ruleReconstructor: Reconstructor = async (input) => ruleThought(input);

/**
 * The terse reconstructor, for small policies trained from scratch: a few words naming the step (what is
 * searched, how many pages are read, the answer), with no varied phrasing to imitate. The same rule as
 * ruleThought: nothing that only the step's own result reveals.
 */
export function terseThought(input: ReconstructInput, opts: { citeGoal?: boolean } = {}): string {
  const bridge = input.action.name === 'answer' ? undefined : carriedEntity(input);
  const found = bridge ? `Found: ${bridge}. ` : '';
  return found + terseStep(input, opts);
}

/** Names a search or visit targets: its queries, and its URLs' titles (`sim://Vance_Air_Force_Base`). */
function targets(action: ToolAction): string[] {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  if (action.name === 'search') return list(action.arguments.query);
  if (action.name === 'visit') return list(action.arguments.url).map((u) => u.replace(/^sim:\/\//, '').replace(/_/g, ' '));
  return [];
}

/**
 * The bridge entity this step hops to, if any: a name it searches or reads that the previous observation showed,
 * that the question does not name and no earlier step searched or read. Written first in the thought ("Found:
 * Enid. Search "Enid"."), the policy picks the bridge once, right after the page that shows it, then copies it
 * into the query or URL from its own thought; and the name stays in its window after that page has scrolled out.
 */
export function carriedEntity(input: ReconstructInput): string | undefined {
  const prev = input.history.at(-1)?.observation?.toLowerCase();
  if (!prev) return undefined;
  const question = input.question.toLowerCase();
  const before = new Set(input.history.flatMap((s) => targets(s.action)).map((n) => n.toLowerCase()));
  return targets(input.action).find((n) => {
    const k = n.toLowerCase();
    return n.length <= 60 && !n.includes(':') && prev.includes(k) && !question.includes(k) && !before.has(k);
  });
}

function terseStep(input: ReconstructInput, opts: { citeGoal?: boolean }): string {
  const { action } = input;
  if (action.name === 'search') {
    const qs = (action.arguments.query as string[] | undefined) ?? [];
    // The no-anchor opening searches the question itself: naming it again would double a long span.
    const named = qs.filter((q) => q.length <= 60);
    return named.length === qs.length && named.length > 0 ? `Search ${phraseList(named.map((q) => `"${q}"`))}.` : 'Search the description.';
  }
  if (action.name === 'visit') {
    const n = ((action.arguments.url as string[] | undefined) ?? []).length;
    return n > 1 ? `Read these ${n} pages.` : 'Read this page.';
  }
  // A fixed first word: the decision to answer is one likely token, not spread over every entity name.
  if (action.name === 'answer') {
    const answer = String(action.arguments.answer ?? '');
    const goal = opts.citeGoal ? answeredGoal(input.history, answer) : undefined;
    return goal ? `Answer (${goal}): ${answer}.` : `Answer: ${answer}.`;
  }
  return 'Next step.';
}

/**
 * The part of the last visit's goal that the answer fills: `what it <rel>` when an evidence line reads
 * "<page> <rel> <answer>.", `what <rel> it` when it reads "<answer> <rel> <page>.". Restated right before the
 * answer, it says which side of the line to copy: the entity after the relation phrase, or the one before it.
 * Undefined when the answer did not come from a visit, or no part of its goal names the answer's slot (the
 * visit checked a candidate, and the answer is the page itself).
 */
export function answeredGoal(history: readonly AgentStep[], answer: string): string | undefined {
  const last = history.at(-1);
  const goal = last?.action.name === 'visit' ? last.action.arguments.goal : undefined;
  if (typeof goal !== 'string' || answer.length === 0) return undefined;
  const lines = (last?.observation ?? '').split('\n').map((l) => l.trim());
  for (const part of goal.split(/, | and /)) {
    const object = /^what it (.+)$/.exec(part)?.[1];
    if (object && lines.some((l) => l.endsWith(` ${object} ${answer}.`))) return part;
    const subject = /^what (.+) it$/.exec(part)?.[1];
    if (subject && lines.some((l) => l.startsWith(`${answer} ${subject} `))) return part;
  }
  return undefined;
}

export const terseReconstructor: Reconstructor = async (input) => terseThought(input);
/** The terse reconstructor whose answer thought restates the goal of the page it answers from (rft style `cited`). */
export const citedReconstructor: Reconstructor = async (input) => terseThought(input, { citeGoal: true });

/** Chat function used by the LLM reconstructor (see tools.ts `chatFn`). */
export type ChatFn = (messages: { role: 'system' | 'user' | 'assistant'; content: string }[]) => Promise<string>;

/** The LLM reconstructor: an instruction model writes the thought (WebSailor 3.2), pi*(tau | H, a, o). */
export function llmReconstructor(chat: ChatFn, fallback: Reconstructor = ruleReconstructor): Reconstructor {
  return async (input) => {
    const hist = input.history
      .map((s, i) => `Step ${i + 1}: thought: ${s.think}\naction: ${JSON.stringify(s.action)}\nobservation: ${(s.observation ?? '').slice(0, 600)}`)
      .join('\n\n');
    const prompt = [
      `Question: ${input.question}`,
      hist ? `History:\n${hist}` : 'History: (none yet)',
      `Next action: ${JSON.stringify(input.action)}`,
      `Its result: ${(input.observation ?? '(final answer)').slice(0, 1200)}`,
      'Write the short thought (1-3 sentences) that the agent had just before taking the next action, justifying it from the history. Do not state facts that only the result reveals. Reply with the thought only.',
    ].join('\n\n');
    try {
      const text = (await chat([{ role: 'user', content: prompt }])).trim();
      return text || (await fallback(input));
    } catch {
      return fallback(input); // the reconstruction must not fail a whole rollout
    }
  };
}

/** Replaces every thought of a trajectory by a reconstructed one; actions and observations are kept. */
export async function reconstructTrajectory(
  traj: Trajectory,
  question: string,
  reconstruct: Reconstructor,
  rng?: Rng,
): Promise<Trajectory> {
  const steps: AgentStep[] = [];
  for (const s of traj.steps as AgentStep[]) {
    const think = await reconstruct({ question, history: steps, action: s.action, observation: s.observation, rng });
    const { raw: _raw, ...rest } = s; // a rewritten thought invalidates any raw text
    steps.push({ ...rest, think });
  }
  return { ...traj, steps };
}
