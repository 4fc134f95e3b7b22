// The exported compute_score (resources/verl/sailor_reward.py, run under Python) against the lab's own reward
// (agent/reward.ts) on every trajectory of a real rollout set: the expert, and a weaker policy that breaks the
// format and answers wrongly or partly, so that format, EM and F1 all vary.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QA, Trajectory } from '../../main/lab/formats/index';
import { readGraphFile } from '../../main/lab/kg/io';
import { readQaDataset } from '../../main/lab/agent/data';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import { type PolicyFactory, resolvePolicy } from '../../main/lab/agent/policies';
import type { Policy } from '../../main/lab/agent/runtime';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { exactMatch, goldAnswers, type RewardOptions, scoreTrajectory, tokenF1 } from '../../main/lab/agent/reward';
import { normalizeAnswer } from '../../main/lab/agent/text';
import { parseTurn } from '../../main/lab/agent/react';
import { verlResponseText } from '../../main/lab/agent/verl-rows';
import type { Rng } from '../../main/lab/util/rng';
import { cliData } from '../support/cli-helpers';
import { runPython } from '../support/verl-python';

const REWARD_PY = join(process.cwd(), 'resources', 'verl', 'sailor_reward.py');

/** The expert's turns, corrupted now and then in the ways small models fail. */
function weaken(policy: Policy, rng: Rng): Policy {
  return {
    name: 'weak',
    async generate(context, opts) {
      const out = await policy.generate(context, opts);
      const r = rng.next();
      if (out.includes('<answer>')) {
        if (r < 0.3) return out.replace(/<answer>(.*?)<\/answer>/s, '<answer>I could not find it</answer>');
        if (r < 0.5) return out.replace(/<answer>\s*(\S+)[^<]*<\/answer>/s, '<answer>$1</answer>'); // first word only: partial F1
        if (r < 0.6) return out.replace('<think>', ''); // missing <think>
        return out;
      }
      if (r < 0.08) return out.replace('{"name"', '{name'); // invalid JSON
      if (r < 0.14) return `${out}\n<tool_response>\nmade up\n</tool_response>`; // a hallucinated observation
      if (r < 0.2) return `Let me think. ${out}`; // text outside the tags
      if (r < 0.24) return out.replace('"search"', '"browse"'); // unknown tool
      return out;
    },
  };
}

function weakFactory(expert: PolicyFactory): PolicyFactory {
  return { spec: 'weak', kind: 'weak', forQA: (qa, sample, rng) => weaken(expert.forQA(qa, sample, rng), rng) };
}

/** Loads the reward file by path, as verl's reward loader does. */
const LOAD = `
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("sailor_reward", os.environ["SAILOR_REWARD"])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
`;

describe('compute_score equals the lab reward', () => {
  let trajs: Trajectory[] = [];
  let qas = new Map<string, QA>();

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verl-reward-'));
    cliData(dir, process.env, { maxEdges: 400, train: 12, held: 3 });
    const web = new SimWeb(readGraphFile(join(dir, 'g.json')));
    const dataset = readQaDataset(join(dir, 'train.jsonl')).qas;
    qas = new Map(dataset.map((q) => [q.id, q]));
    const expert = resolvePolicy('oracle', { anchorName: (id) => web.page(`sim://${id}`)?.title });
    const tools = simToolset(web);
    trajs = [
      ...(await rolloutDataset(dataset, expert, tools, { n: 1, seed: 1 })),
      ...(await rolloutDataset(dataset, weakFactory(expert), tools, { n: 4, seed: 2, limits: { maxToolCalls: 6 } })),
    ];
  }, 240_000);

  it('gives every trajectory the same reward under EM, F1 and per-turn format credit', async () => {
    const variants: Array<Partial<RewardOptions>> = [{}, { mode: 'f1' }, { formatCredit: 'turns' }, { mode: 'f1', combine: 'product' }];
    const golds = trajs.map((t) => goldAnswers(qas.get(t.qa_id)!));
    const responses = trajs.map((t) => verlResponseText(t));
    // The same responses as decoded with special tokens kept, and as verl <= 0.7.1 decoded them (no turn separator
    // after the assistant's close token: verl/utils/tokenizer/chat_template.py initialize_turn_separator, v0.9.0).
    const withSpecial = responses.map((r) => r.replaceAll('\nuser\n<tool_response>', '<|im_end|>\n<|im_start|>user\n<tool_response>').replaceAll('</tool_response>\nassistant\n', '</tool_response><|im_end|>\n<|im_start|>assistant\n') + '<|im_end|>');
    const noSeparator = responses.map((r) => r.replaceAll('\nuser\n<tool_response>', 'user\n<tool_response>'));
    const cases = [...responses, ...withSpecial, ...noSeparator].map((response, i) => ({ response, golds: golds[i % trajs.length]! }));
    const py = (await runPython(
      `${LOAD}
data = json.load(sys.stdin)
opts = [{"mode": v.get("mode", "em"), "format_credit": {"turns": "turns"}.get(v.get("formatCredit"), "episode"), "combine": v.get("combine", "sum")} for v in data["variants"]]
out = [[mod.lab_reward(c["response"], {"target": c["golds"]}, o)["score"] for c in data["cases"]] for o in opts]
first = data["cases"][0]
out.append(mod.compute_score("sailor/train", first["response"], {"target": first["golds"]}, {"index": 0}))
print(json.dumps(out))`,
      { cases, variants },
      { env: { SAILOR_REWARD: REWARD_PY } },
    )) as [number[], number[], number[], number[], { score: number; acc: number; format: number }];
    for (const [v, options] of variants.entries()) {
      const lab = await Promise.all(trajs.map(async (t) => (await scoreTrajectory(t, qas.get(t.qa_id)!, options)).total));
      expect(py[v], `variant ${JSON.stringify(options)}`).toEqual([...lab, ...lab, ...lab]);
    }
    // The stored rollout rewards (EM, the lab's defaults) are the first variant too.
    expect(py[0]!.slice(0, trajs.length)).toEqual(trajs.map((t) => t.reward.total));
    // The set is varied: right and wrong, well- and ill-formed, partial F1.
    expect(new Set(py[0]).size).toBeGreaterThanOrEqual(3);
    expect(py[1].some((x) => x > 0.1 && x < 1 && x !== 0.9)).toBe(true);
    expect(trajs.some((t) => t.steps.some((s) => (s as { issues?: string[] }).issues?.includes('hallucinated_observation')))).toBe(true);
    expect(py[4]).toEqual({ score: trajs[0]!.reward.total, acc: trajs[0]!.reward.answer, format: trajs[0]!.reward.format });
  }, 60_000);

  it('normalises answers as the lab does, on text full of Unicode traps', async () => {
    // Accents and combining marks, final sigma, dotted I, sharp s, ligatures, full-width and Arabic-Indic digits,
    // Roman numerals and superscripts (number letters), CJK, emoji, zero-width joiners, JavaScript-only spaces.
    const alphabet = [...'aZ09 -.,\'"?!', 'é', 'É', 'e\u0301', 'Σ', 'ΟΔΟΣ', 'İ', 'ß', 'ﬁ', '１２', '٣', 'Ⅻ', '²', '北京', '😀', '\u200d', '\u00a0', '\ufeff', '\u2028', '\u1680', '\u000b', '\u001c', '\u0085', 'ǅ', 'Å', 'ø', 'ŉ'];
    const texts = fc.sample(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }).map((xs) => xs.join('')), { numRuns: 400, seed: 19 });
    // The third is a prefix cut in JavaScript (UTF-16 units, so it may split a surrogate pair), passed as is.
    const pairs = texts.map((t, i) => [t, texts[(i * 7 + 3) % texts.length]!, t.slice(0, 3)] as const);
    const py = (await runPython(
      `${LOAD}
data = json.load(sys.stdin)
print(json.dumps([[mod.normalize_answer(t) for t in data["texts"]],
                  [mod.exact_match(a, [b]) for a, b, _ in data["pairs"]],
                  [mod.token_f1(a, [b, c]) for a, b, c in data["pairs"]]]))`,
      { texts, pairs },
      { env: { SAILOR_REWARD: REWARD_PY } },
    )) as [string[], number[], number[]];
    expect(py[0]).toEqual(texts.map((t) => normalizeAnswer(t)));
    expect(py[1]).toEqual(pairs.map(([a, b]) => exactMatch(a, [b])));
    expect(py[2]).toEqual(pairs.map(([a, b, c]) => tokenF1(a, [b, c])));
  });

  it('matches standard forms as the lab does ("City of X" is X, St. is Saint, & is and)', async () => {
    const pieces = ['City of', 'city  of', 'Town of', 'Village of', 'of', 'St.', 'st', 'Saint', 'Mt', 'Ft.', '&', 'and', 'The', 'Freeport', 'Louis', 'B', ' ', ','];
    const texts = fc.sample(fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((xs) => xs.join(' ')), { numRuns: 400, seed: 29 });
    // Random pairs, and each text against itself in another form, so that both answers occur.
    const pairs = texts.flatMap((t, i) => [[t, texts[(i * 5 + 1) % texts.length]!], [t, `City of ${t.replace(/Saint/g, 'St.')}`]] as const);
    const py = (await runPython(
      `${LOAD}
data = json.load(sys.stdin)
print(json.dumps([mod.exact_match(a, [b]) for a, b in data["pairs"]]))`,
      { pairs },
      { env: { SAILOR_REWARD: REWARD_PY } },
    )) as number[];
    expect(py).toEqual(pairs.map(([a, b]) => exactMatch(a, [b])));
    const plainMatches = pairs.filter(([a, b]) => normalizeAnswer(a) !== '' && normalizeAnswer(a) === normalizeAnswer(b)).length;
    expect(py.filter((x) => x === 1).length).toBeGreaterThan(plainMatches);
  });

  it('parses turns as the lab does: kind, format issues in order, and the answer', async () => {
    const fragments = [
      '<think>', '</think>', '<tool_call>', '</tool_call>', '<answer>', '</answer>', '<tool_response>', '\n', ' ', 'x', 'Paris',
      '{"name": "search", "arguments": {"query": ["a"]}}', '{"name": "visit", "arguments": {"url": "sim://a", "goal": "g"}}',
      '{"name": "answer", "arguments": {"answer": " b "}}', '{"name": "browse", "arguments": {}}', '{"name": "search", "arguments": {"query": [1]}}',
      '{"name": "visit", "arguments": {"url": ["u"]}}', '{"name": "search", "arguments": []}', '{name}', '{"a": NaN}', '[1]', '"s"', '\u00a0', '\ufeff', '\u2028',
    ];
    const turns = fc.sample(fc.array(fc.constantFrom(...fragments), { maxLength: 9 }).map((xs) => xs.join('')), { numRuns: 1500, seed: 23 });
    // Well-formed turns with a random action, so that valid ones are common too.
    const actions = fragments.filter((f) => f.startsWith('{"name"'));
    turns.push(...actions.map((a) => `<think>\nwhy\n</think>\n<tool_call>\n${a}\n</tool_call>`), '<think>ok</think><answer> Paris </answer>\n');
    const py = (await runPython(`${LOAD}
print(json.dumps([list(mod.parse_turn(t)) for t in json.load(sys.stdin)]))`, turns, { env: { SAILOR_REWARD: REWARD_PY } })) as Array<[string, string[], string | null]>;
    const lab = turns.map((t) => {
      const p = parseTurn(t);
      return [p.kind, p.issues, p.kind === 'answer' ? String(p.action!.arguments.answer) : null];
    });
    expect(py).toEqual(lab);
    expect(new Set(lab.map((x) => x[0]))).toEqual(new Set(['tool', 'answer', 'invalid', 'empty']));
    expect(lab.some((x) => x[0] === 'tool' && (x[1] as string[]).length === 0)).toBe(true);
  });
});
