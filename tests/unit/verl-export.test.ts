// `sailor export verl` and `sailor export sft` read back by real clients: pyarrow over both Parquet files (every row's
// fields and types as verl's RL dataset reads them: verl/utils/dataset/rl_dataset.py, and the row shape of
// examples/data_preprocess/gsm8k_tool_agent_loop.py), PyYAML over the tool configs, and the SFT file as chat messages.
import { beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readQaDataset } from '../../main/lab/agent/data';
import { systemPrompt } from '../../main/lab/agent/react';
import { goldAnswers } from '../../main/lab/agent/reward';
import { pq, schemaElements, toParquetValue, writeParquetRows } from '../../main/lab/cli/parquet';
import { toYaml } from '../../main/lab/cli/export-verl';
import { cliData, sailor } from '../support/cli-helpers';
import { runPython } from '../support/verl-python';

let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'verl-export-'));
  cliData(dir, process.env, { maxEdges: 400, train: 8, held: 3 });
}, 120_000);

const READ_PARQUET = `
import json, sys, yaml
import pyarrow.parquet as pq
inp = json.load(sys.stdin)
problems = []
def need(cond, what):
    if not cond:
        problems.append(what)
out = {}
for split, name in (("train", "train.parquet"), ("test", "val.parquet")):
    table = pq.read_table(inp["out"] + "/" + name)
    rows = table.to_pylist()
    out[split] = {"columns": table.schema.names, "rows": len(rows), "qa_ids": [r["extra_info"]["qa_id"] for r in rows],
                  "targets": [r["reward_model"]["ground_truth"]["target"] for r in rows]}
    for i, r in enumerate(rows):
        where = "%s row %d" % (name, i)
        need(isinstance(r["data_source"], str) and r["data_source"].startswith("sailor/"), where + " data_source")
        need(r["agent_name"] == "tool_agent", where + " agent_name")
        need(isinstance(r["ability"], str) and r["ability"], where + " ability")
        p = r["prompt"]
        need(isinstance(p, list) and [m["role"] for m in p] == ["system", "user"], where + " prompt roles")
        need(p[0]["content"] == inp["system"], where + " system prompt")
        need(isinstance(p[1]["content"], str) and p[1]["content"], where + " question")
        rm = r["reward_model"]
        need(rm["style"] == "rule", where + " reward_model.style")
        t = rm["ground_truth"]["target"]
        need(isinstance(t, list) and t and all(isinstance(x, str) for x in t), where + " ground_truth.target")
        e = r["extra_info"]
        need(type(e["index"]) is int and e["index"] == i, where + " extra_info.index")
        need(e["split"] == split, where + " extra_info.split")
        tk = e["tools_kwargs"]
        need(sorted(tk) == ["search", "visit"] and all(tk[k]["create_kwargs"]["qa_id"] == e["qa_id"] for k in tk), where + " tools_kwargs")
        need(isinstance(e["interaction_kwargs"], dict), where + " interaction_kwargs")
out["problems"] = problems
out["tools"] = [t["tool_schema"]["function"]["name"] for t in yaml.safe_load(open(inp["out"] + "/tool_config.yaml"))["tools"]]
out["r1"] = yaml.safe_load(open(inp["out"] + "/tool_config_search_r1.yaml"))["tools"][0]["config"]["retrieval_service_url"]
print(json.dumps(out))
`;

describe('sailor export verl', () => {
  it('writes train and val Parquet that pyarrow reads with every field verl needs, and tool configs PyYAML reads', async () => {
    const out = join(dir, 'run');
    const r = sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--held-out', join(dir, 'held.jsonl'), '--out', out, '--json'], process.env);
    expect(r.status, r.stderr).toBe(0);
    const res = (await runPython(READ_PARQUET, { out, system: systemPrompt() })) as {
      train: { columns: string[]; rows: number; qa_ids: string[]; targets: string[][] };
      test: { rows: number; qa_ids: string[] };
      problems: string[];
      tools: string[];
      r1: string;
    };
    expect(res.problems).toEqual([]);
    expect(res.train.columns).toEqual(['data_source', 'prompt', 'ability', 'reward_model', 'extra_info', 'agent_name']);
    const train = readQaDataset(join(dir, 'train.jsonl')).qas;
    const held = readQaDataset(join(dir, 'held.jsonl')).qas;
    expect(res.train.qa_ids).toEqual(train.map((q) => q.id));
    expect(res.train.targets).toEqual(train.map((q) => goldAnswers(q)));
    expect(res.test.qa_ids).toEqual(held.map((q) => q.id));
    expect(res.tools).toEqual(['search', 'visit']);
    expect(res.r1).toBe('http://127.0.0.1:8000/retrieve');
    const runSh = readFileSync(join(out, 'run.sh'), 'utf8');
    for (const setting of ['multi_turn.enable=True', 'multi_turn.format=hermes', 'max_tool_response_length=8192', 'loss_agg_mode=token-mean', 'clip_ratio_high=0.28', 'adv_estimator=grpo', 'algorithm.filter_groups.enable=True', 'default_agent_loop=tool_agent']) {
      expect(runSh).toContain(setting);
    }
    expect(runSh).toContain('reward.custom_reward_function.path="$HERE/sailor_reward.py"');
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/verl 0\.9\.0[\s\S]*verl 0\.7\.1/);
  });

  it('writes a run.sh that hands verl every path filled, with DAPO and function tools on request', () => {
    const out = join(dir, 'launch');
    expect(sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--out', out], process.env).status).toBe(0);
    // A python3 that passes the health check and prints the arguments verl's entry point would get.
    const bin = join(dir, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'python3'), '#!/bin/sh\nif [ "$1" = -c ]; then exit 0; fi\nprintf "%s\\n" "$@"\n');
    chmodSync(join(bin, 'python3'), 0o755);
    const launch = (env: Record<string, string>): string[] => {
      const r = spawnSync('bash', [join(out, 'run.sh'), 'trainer.total_training_steps=5'], { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ...env } });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.trim().split('\n');
    };
    const plain = launch({});
    expect(plain.slice(0, 2)).toEqual(['-m', 'verl.trainer.main_ppo']);
    const value = (args: string[], key: string): string | undefined => args.find((a) => a.startsWith(`${key}=`))?.slice(key.length + 1);
    for (const key of ['data.train_files', 'data.val_files', 'reward.custom_reward_function.path', 'actor_rollout_ref.rollout.multi_turn.tool_config_path']) {
      expect(existsSync(value(plain, key)!), key).toBe(true);
    }
    expect(plain.some((a) => a.startsWith('algorithm.filter_groups'))).toBe(false);
    expect(plain.at(-1)).toBe('trainer.total_training_steps=5');
    const dapo = launch({ DAPO: '1', TOOLS: 'function' });
    expect(value(dapo, 'algorithm.filter_groups.enable')).toBe('True');
    expect(value(dapo, 'algorithm.filter_groups.metric')).toBe('acc');
    expect(existsSync(value(dapo, 'actor_rollout_ref.rollout.multi_turn.function_tool_path')!)).toBe(true);
  });

  it('without --held-out validates on the first training questions and says so', async () => {
    const out = join(dir, 'no-held');
    const r = sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--out', out, '--reward', 'f1'], process.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('no --held-out');
    expect(readFileSync(join(out, 'sailor_reward.py'), 'utf8')).toContain('REWARD_OPTIONS = {"mode":"f1"');
  });

  it('refuses bad input with messages that name it', () => {
    const missing = sailor(['export', 'verl', '--dataset', join(dir, 'nope.jsonl'), '--out', join(dir, 'x')], process.env);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl');
    const judge = sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--out', join(dir, 'x'), '--reward', 'judge'], process.env);
    expect([judge.status, judge.stderr]).toEqual([2, expect.stringContaining('--reward must be em or f1')]);
    const url = sailor(['export', 'verl', '--dataset', join(dir, 'train.jsonl'), '--out', join(dir, 'x'), '--web-url', 'ftp://h/x'], process.env);
    expect([url.status, url.stderr]).toEqual([2, expect.stringContaining('--web-url')]);
    writeFileSync(join(dir, 'not-qa.jsonl'), '{"hello": 1}\n');
    const notQa = sailor(['export', 'verl', '--dataset', join(dir, 'not-qa.jsonl'), '--out', join(dir, 'x')], process.env);
    expect(notQa.status).toBe(2);
    expect(notQa.stderr).toContain('not-qa.jsonl');
  });
});

describe('Parquet rows', () => {
  it('refuses a value the schema cannot hold, naming the row and field', () => {
    const type = pq.struct({ target: pq.list(pq.string) });
    expect(() => toParquetValue({ target: ['a', 5] }, type, 'row 3: reward_model')).toThrow('row 3: reward_model.target[1]: expected a string for Parquet, got number 5');
    expect(() => toParquetValue({ target: [], extra: 1 }, type, 'row 0: x')).toThrow("field 'extra' is not in the Parquet schema");
    expect(() => toParquetValue(1.5, pq.int64, 'row 0: index')).toThrow('expected a whole number');
    expect(() => schemaElements('interaction_kwargs', pq.struct({}))).toThrow('Parquet cannot hold an empty struct');
    expect(() => writeParquetRows(join(dir, 'empty.parquet'), [['a', pq.string]], [])).toThrow('no rows to write');
  });

  it('writes YAML that PyYAML reads back as the same data', async () => {
    const value = { tools: [{ class_name: 'a.B', config: { url: 'http://x:1', n: 3, on: true, 'a b': null, empty: [] }, tool_schema: { required: ['q'], text: 'colon: "quote" #hash' } }] };
    const back = await runPython('import json, sys, yaml\nprint(json.dumps(yaml.safe_load(json.load(sys.stdin))))', toYaml(value).trimStart());
    expect(back).toEqual(value);
  });
});

describe('sailor export sft', () => {
  it('writes RFT trajectories as chat messages with role:tool observations: JSON Lines, structured calls, Parquet', async () => {
    const rft = join(dir, 'rft.jsonl');
    const r0 = sailor(['rft', '--graph', join(dir, 'g.json'), '--dataset', join(dir, 'train.jsonl'), '--attempts', '1', '--min-tool-calls', '0', '--out', rft], process.env);
    expect(r0.status, r0.stderr).toBe(0);
    const outs = { content: join(dir, 'sft.jsonl'), structured: join(dir, 'sft-structured.jsonl'), parquet: join(dir, 'sft.parquet') };
    for (const [mode, file] of [['content', outs.content], ['structured', outs.structured], ['content', outs.parquet]] as const) {
      const r = sailor(['export', 'sft', '--trajectories', rft, '--out', file, '--calls', mode], process.env);
      expect(r.status, r.stderr).toBe(0);
    }
    const res = (await runPython(
      `
import json, sys
import pyarrow.parquet as pq
inp = json.load(sys.stdin)
def check(records, structured):
    problems, roles = [], set()
    for rec in records:
        m = rec["messages"]
        if [x["role"] for x in m[:2]] != ["system", "user"] or m[0]["content"] != inp["system"]:
            problems.append("start")
        for i, x in enumerate(m[2:], 2):
            roles.add(x["role"])
            if x["role"] != "assistant":
                continue
            calls = x.get("tool_calls")
            has_text_call = "<tool_call>" in x["content"]
            if calls and (has_text_call or not structured or not isinstance(calls[0]["function"]["arguments"], dict)):
                problems.append("call written twice or in the wrong place")
            if (calls or has_text_call) and m[i + 1]["role"] != "tool":
                problems.append("no tool message after a call")
            if not structured and not has_text_call and "<answer>" not in x["content"]:
                problems.append("assistant turn without an action")
        if m[-1]["role"] != "assistant" or "<answer>" not in m[-1]["content"]:
            problems.append("does not end with an answer")
    return {"n": len(records), "problems": problems, "roles": sorted(roles)}
load = lambda f: [json.loads(l) for l in open(f)]
table = pq.read_table(inp["parquet"])
print(json.dumps({"content": check(load(inp["content"]), False), "structured": check(load(inp["structured"]), True),
                  "parquet": check(table.to_pylist(), False), "columns": table.schema.names, "same": table.to_pylist() == load(inp["content"])}))`,
      { ...outs, system: systemPrompt() },
    )) as Record<'content' | 'structured' | 'parquet', { n: number; problems: string[]; roles: string[] }> & { columns: string[]; same: boolean };
    for (const k of ['content', 'structured', 'parquet'] as const) {
      expect(res[k].problems, k).toEqual([]);
      expect(res[k].n, k).toBeGreaterThan(0);
      expect(res[k].roles, k).toEqual(['assistant', 'tool']);
    }
    expect(res.columns).toEqual(['messages', 'qa_id', 'trajectory_id']);
    expect(res.same).toBe(true);
    const bad = sailor(['export', 'sft', '--trajectories', rft, '--out', join(dir, 'x.parquet'), '--calls', 'structured'], process.env);
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('needs --out F.jsonl')]);
  });

  it('needs the questions: a clear error when neither --dataset nor the header names them', () => {
    const bare = join(dir, 'bare.jsonl');
    writeFileSync(bare, `${JSON.stringify({ id: 't', qa_id: 'q', policy: 'oracle', steps: [], prediction: null, termination: 'answer', reward: { format: 0, answer: 0, total: 0 }, tool_calls: 0, tokens: { generated: 0, observation: 0 } })}\n`);
    const r = sailor(['export', 'sft', '--trajectories', bare, '--out', join(dir, 'o.jsonl')], process.env);
    expect([r.status, r.stderr]).toEqual([2, expect.stringContaining('pass --dataset')]);
    const wrong = sailor(['export', 'sft', '--trajectories', bare, '--dataset', join(dir, 'train.jsonl'), '--out', join(dir, 'o.jsonl')], process.env);
    expect([wrong.status, wrong.stderr]).toEqual([2, expect.stringContaining("question 'q'")]);
  });
});
