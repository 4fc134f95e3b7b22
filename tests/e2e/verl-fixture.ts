// A verl run's files written in verl's own shapes, for the import tests (unit and Playwright). Shapes from
// verl v0.9.0 (483b8a0):
//  - metrics: verl/utils/tracking.py:433-435, FileLogger.log writes orjson.dumps({"step": step, "data": data}) + b"\n";
//    names from verl/trainer/ppo/metric_utils.py:556-604 (critic/score/mean, response_length/mean, num_turns/mean,
//    tool_call_counts/mean) and ray_trainer.py:721-737 (val-core/{data_source}/{var}/mean@N, acc the core var);
//  - dumps: verl/trainer/ppo/ray_trainer.py:454-475, _write_generations: {dump_path}/{global_steps}.jsonl, one
//    json.dumps({"input", "output", "gts", "score", "step", ...reward_extra_infos}) per line, request_id added by
//    _log_rollout_data (:533-537); input and output decoded with skip_special_tokens=True (:527-528, :664, :673);
//  - episodes: resources/verl/sailor_tools.py _write_episode: {"request_id", "qa_id", "turns"}.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const VERL_QUESTION = 'Which mathematician wrote the first published algorithm for a machine?';
const PROMPT = `system\nYou are a search agent.\nuser\n${VERL_QUESTION}\nassistant\n`;

/** A two-turn episode as verl decodes it: a search, Qwen's tool message, then an answer. */
export function decodedOutput(answer: string): string {
  return (
    '<think>I should search for the author of the first algorithm.</think>\n<tool_call>\n{"name": "search", "arguments": {"query": ["first published algorithm"]}}\n</tool_call>' +
    '\nuser\n<tool_response>\n[1] Ada Lovelace: wrote the first algorithm for the Analytical Engine.\n</tool_response>\nassistant\n' +
    `<think>The page names her.</think>\n<answer>${answer}</answer>`
  );
}

/** One metrics line as verl's file logger writes it (numbers; orjson writes NaN as null). */
export function metricsLine(step: number, extra: Record<string, number | null> = {}): string {
  const data: Record<string, number | null> = {
    'critic/score/mean': 0.2 + 0.1 * step,
    'actor/entropy': 1.5 - 0.1 * step,
    'actor/pg_loss': -0.01 * step,
    'actor/pg_clipfrac': 0.01,
    'actor/pg_clipfrac_lower': 0,
    'actor/grad_norm': 0.5,
    'actor/lr': 1e-6,
    'actor/ppo_kl': 0.001,
    'response_length/mean': 300 + step,
    'num_turns/mean': 5,
    'tool_call_counts/mean': 2,
    'timing_s/gen': 12,
    'timing_s/update_actor': 8,
    'timing_s/step': 25,
    'perf/throughput': 1500,
    'training/global_step': step,
    ...extra,
  };
  return JSON.stringify({ step, data }) + '\n';
}

const valMetrics = (acc: number): Record<string, number> => ({ 'val-core/sailor/held/acc/mean@1': acc, 'val-aux/sailor/held/reward/mean@1': 0.1 + 0.9 * acc, 'val-aux/sailor/held/format/mean@1': 1 });

function dumpLine(step: number, answer: string, correct: boolean, requestId: string): string {
  const score = correct ? 1 : 0.1;
  return JSON.stringify({ input: PROMPT, output: decodedOutput(answer), gts: { target: ['Ada Lovelace', 'Augusta Ada King'] }, score, step, acc: correct ? 1 : 0, format: 1, request_id: requestId }) + '\n';
}

export interface VerlRunFiles {
  dir: string;
  metrics: string;
  rollouts: string;
  validation: string;
  episodes: string;
}

/**
 * A run of `steps` training steps with validation at step 0 and the last step, a rollout dump per step;
 * `answerOf` may change what rollout i of a step answered (a degenerate answer, say).
 */
export function writeVerlRunFiles(dir: string, steps = 3, answerOf: (step: number, i: number) => string | undefined = () => undefined): VerlRunFiles {
  const files = { dir, metrics: join(dir, 'metrics.jsonl'), rollouts: join(dir, 'rollouts'), validation: join(dir, 'validation'), episodes: join(dir, 'episodes.jsonl') };
  mkdirSync(files.rollouts, { recursive: true });
  mkdirSync(files.validation, { recursive: true });
  // val_before_train logs step 0 alone; a later validation joins its step's one record (ray_trainer.py fit).
  let text = JSON.stringify({ step: 0, data: valMetrics(0.25) }) + '\n';
  for (let s = 1; s <= steps; s++) text += metricsLine(s, s === steps ? valMetrics(0.5) : {});
  writeFileSync(files.metrics, text);
  for (let s = 1; s <= steps; s++) {
    writeFileSync(join(files.rollouts, `${s}.jsonl`), [0, 1, 2, 3].map((i) => dumpLine(s, answerOf(s, i) ?? (i % 2 ? 'Charles Babbage' : 'Ada Lovelace'), i % 2 === 0, `req-${s}-${i}`)).join(''));
  }
  for (const s of [0, steps]) writeFileSync(join(files.validation, `${s}.jsonl`), dumpLine(s, s ? 'Ada Lovelace' : 'Babbage', s > 0, `val-${s}`));
  // The exported tools log the episode of req-1-0 with exact turns (tool_agent_loop messages: assistant, tool, ...).
  const episode = {
    request_id: 'req-1-0',
    qa_id: 'qa-ada',
    turns: [
      { role: 'assistant', content: '<think>Search first.</think>\n<tool_call>\n{"name": "search", "arguments": {"query": ["Ada Lovelace algorithm"]}}\n</tool_call>' },
      { role: 'tool', content: 'Ada Lovelace: the first algorithm.' },
      { role: 'assistant', content: '<think>Done.</think>\n<answer>Ada Lovelace</answer>' },
    ],
  };
  writeFileSync(files.episodes, JSON.stringify(episode) + '\n' + JSON.stringify({ ...episode, request_id: 'lonely', qa_id: 'qa-lonely' }) + '\n');
  return files;
}

/** Appends a training step's metrics line, as verl does after each step. */
export function appendVerlStep(file: string, step: number): void {
  appendFileSync(file, metricsLine(step));
}
