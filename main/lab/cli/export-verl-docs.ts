// The launch script and README that `sailor export verl` writes beside the Parquet files. Settings named as in
// verl 0.9's trainer config (verl/trainer/config/_generated_ppo_trainer.yaml); docs/verl.md explains them.

export function renderRunSh(o: { webUrl: string; dataSource: string }): string {
  return `#!/usr/bin/env bash
# Written by \`sailor export verl\`: GRPO with clip-higher and token-mean loss on the lab's questions, multi-turn
# with the lab's search and visit (served by \`sailor web serve\`) and the lab's reward. DAPO=1 adds DAPO's
# dynamic sampling (algorithm.filter_groups on the answer score). Extra arguments are passed on to verl.
set -euo pipefail
HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
MODEL="\${MODEL:-Qwen/Qwen2.5-7B-Instruct}"
export SAILOR_WEB_URL="\${SAILOR_WEB_URL:-${o.webUrl}}"
export SAILOR_EPISODES_FILE="\${SAILOR_EPISODES_FILE:-$HERE/episodes.jsonl}"
export VERL_FILE_LOGGER_PATH="\${VERL_FILE_LOGGER_PATH:-$HERE/metrics.jsonl}"
export PYTHONPATH="$HERE\${PYTHONPATH:+:$PYTHONPATH}"

# TOOLS=class: tool_config.yaml (BaseTool classes, writes episodes.jsonl); TOOLS=function: verl >= 0.9 function tools.
if [ "\${TOOLS:-class}" = function ]; then
  TOOL_ARG="actor_rollout_ref.rollout.multi_turn.function_tool_path=$HERE/sailor_function_tools.py"
else
  TOOL_ARG="actor_rollout_ref.rollout.multi_turn.tool_config_path=$HERE/tool_config.yaml"
fi
DAPO_ARGS=()
if [ "\${DAPO:-0}" = 1 ]; then
  DAPO_ARGS=(algorithm.filter_groups.enable=True algorithm.filter_groups.metric=acc algorithm.filter_groups.max_num_gen_batches=10)
fi

python3 -c "import requests, sys; requests.get(sys.argv[1] + '/health', timeout=5).raise_for_status()" "$SAILOR_WEB_URL" || {
  echo "run.sh: no simulated web at $SAILOR_WEB_URL; start it first: sailor web serve --graph G.json --port 8000" >&2
  exit 1
}

python3 -m verl.trainer.main_ppo \\
  algorithm.adv_estimator=grpo \\
  algorithm.use_kl_in_reward=False \\
  \${DAPO_ARGS[@]+"\${DAPO_ARGS[@]}"} \\
  data.train_files="$HERE/train.parquet" \\
  data.val_files="$HERE/val.parquet" \\
  data.train_batch_size="\${BATCH:-64}" \\
  data.max_prompt_length=4096 \\
  data.max_response_length="\${MAX_RESPONSE:-16384}" \\
  data.filter_overlong_prompts=True \\
  data.truncation=error \\
  data.return_raw_chat=True \\
  actor_rollout_ref.model.path="$MODEL" \\
  actor_rollout_ref.actor.optim.lr=1e-6 \\
  actor_rollout_ref.actor.ppo_mini_batch_size=16 \\
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \\
  actor_rollout_ref.actor.use_kl_loss=False \\
  actor_rollout_ref.actor.clip_ratio_low=0.2 \\
  actor_rollout_ref.actor.clip_ratio_high=0.28 \\
  actor_rollout_ref.actor.loss_agg_mode=token-mean \\
  actor_rollout_ref.rollout.name=vllm \\
  actor_rollout_ref.rollout.mode=async \\
  actor_rollout_ref.rollout.n="\${GROUP:-8}" \\
  actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \\
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 \\
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4 \\
  actor_rollout_ref.rollout.multi_turn.enable=True \\
  actor_rollout_ref.rollout.multi_turn.format=hermes \\
  actor_rollout_ref.rollout.multi_turn.max_assistant_turns=31 \\
  actor_rollout_ref.rollout.multi_turn.max_parallel_calls=1 \\
  actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192 \\
  actor_rollout_ref.rollout.multi_turn.tool_response_truncate_side=right \\
  actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent \\
  "$TOOL_ARG" \\
  reward.custom_reward_function.path="$HERE/sailor_reward.py" \\
  reward.custom_reward_function.name=compute_score \\
  trainer.logger='["console","file"]' \\
  trainer.project_name=sailor \\
  trainer.experiment_name="\${EXPERIMENT:-${o.dataSource.replace(/[^\w.-]+/g, '-')}-grpo}" \\
  trainer.rollout_data_dir="$HERE/rollouts" \\
  trainer.validation_data_dir="$HERE/validation" \\
  trainer.n_gpus_per_node="\${NGPUS:-8}" \\
  trainer.nnodes="\${NNODES:-1}" \\
  trainer.val_before_train=True \\
  trainer.test_freq=10 \\
  trainer.save_freq=20 \\
  trainer.total_epochs="\${EPOCHS:-1}" \\
  "$@"
`;
}

export function renderReadme(o: { webUrl: string; train: number; val: number; valFrom: 'held-out' | 'train'; reward: string }): string {
  const valNote = o.valFrom === 'held-out' ? 'the held-out questions' : `the first ${o.val} training questions (no --held-out was given: a check of fit, not of generalisation)`;
  return `# Sailor Lab → verl

Written by \`sailor export verl\`. Train on a cluster with [verl](https://github.com/verl-project/verl) on the lab's
questions, simulated web and reward. Written against **verl 0.9.0** (function tools, \`reward.custom_reward_function\`)
and **verl 0.7.1** (the last release with the built-in \`SearchTool\`).

| file | what |
|---|---|
| \`train.parquet\` | ${o.train} questions in verl's RL row shape: \`data_source\`, \`prompt\` (the lab's system prompt and the question), \`ability\`, \`reward_model.ground_truth.target\` (answer and aliases), \`extra_info\` (\`index\`, \`split\`, \`tools_kwargs\`, \`interaction_kwargs\`, \`qa_id\`), \`agent_name: tool_agent\` |
| \`val.parquet\` | ${valNote} |
| \`sailor_reward.py\` | \`compute_score\`: the lab's reward (0.1 format + 0.9 answer, ${o.reward === 'f1' ? 'word F1' : 'exact match'} after the lab's answer normalisation); standard library only |
| \`sailor_tools.py\`, \`tool_config.yaml\` | search and visit as \`BaseTool\` classes calling \`sailor web serve\`; with \`SAILOR_EPISODES_FILE\` set they append one JSON line per finished episode with its turns |
| \`sailor_function_tools.py\` | the same tools as verl 0.9 \`@function_tool\` functions (\`multi_turn.function_tool_path\`) |
| \`sailor_web.py\` | the HTTP client both use (\`SAILOR_WEB_URL\`, default ${o.webUrl}; \`SAILOR_WEB_KEY\` for a non-loopback service) |
| \`tool_config_search_r1.yaml\` | verl ≤ 0.7.1 only: verl's own \`SearchTool\` against \`POST /retrieve\` |
| \`run.sh\` | the launch: GRPO, clip-higher (0.2/0.28), token-mean loss, multi-turn hermes tools; \`DAPO=1\` adds dynamic sampling |

## Install

    pip install "verl[vllm]==0.9.0"      # or 0.7.1; Python 3.10+, CUDA
    pip install requests                   # the tools' HTTP client

The machine that runs the tools must reach the simulated web. On the lab's machine (or any machine with Sailor Lab):

    sailor web serve --graph G.json --port 8000                    # loopback
    sailor web serve --graph G.json --port 8000 --host 0.0.0.0     # the cluster: prints a key; export SAILOR_WEB_KEY=<key>

## Launch

    SAILOR_WEB_URL=${o.webUrl} MODEL=Qwen/Qwen2.5-7B-Instruct NGPUS=8 ./run.sh

Variables: \`MODEL\`, \`NGPUS\`, \`NNODES\`, \`BATCH\`, \`GROUP\` (rollouts per question), \`MAX_RESPONSE\`, \`EPOCHS\`,
\`EXPERIMENT\`, \`TOOLS=class|function\`, \`DAPO=1\`; anything after \`./run.sh\` goes to verl as an override.
On verl 0.7.1 use \`TOOLS=class\` (function tools arrived later) and, for DAPO's dynamic sampling, verl's
\`recipe/dapo\` trainer with the same overrides. Metrics go to \`metrics.jsonl\` (\`trainer.logger=[console,file]\`),
generations to \`rollouts/\` and \`validation/\`, episodes to \`episodes.jsonl\`.

Notes: the lab's prompt declares the tools and asks for \`<think>\`, then one \`<tool_call>\` or an
\`<answer>\`; Qwen chat templates also list the tool schemas from the tool config, which repeat the same
declarations. \`max_tool_response_length\` is raised to 8192 characters (verl's default of 256 would cut every page).
`;
}
