#!/usr/bin/env bash
# Issue #41's three-seed comparison (docs/learning.md, "Copy what you read"): the quick preset (3000 SFT steps
# from the bundled base model; arm `ctl`) against the same recipe with the unlikelihood term (weight 1, window 4;
# arm `ul`) and against the same recipe trained on more one-hop questions (item 5, "questions are free and steps
# are not"; arm `more`), on data seeds +0, +10, +20, paired on the same held-out questions on the same web.
# The 12000-edge graph's one-hop facts run out near 1900 questions, so the larger set is drawn from
# `kg build --rng 7 --max-edges 20000`, which holds the quick graph's 12000 edges unchanged and adds 8000: the
# held-out questions are the quick preset's (on the quick graph, off the control's training edges) and the
# larger training set is drawn off their edges (its one-hop facts run out near 2900).
# Every held-out figure is greedy on the quick graph's web, so both arms answer the same questions on the
# same pages; the larger arm's own in-run evaluation (on the 20000-edge web) is in its run as well.
# Run from the repository root (after `npm run build`): bash bench/research/question-count-seeds.sh OUT [STEP...]
#   STEP: data-K | ctl-K | ul-K | more-K | post-K-ARM (K = 0, 10, 20; default: ctl and ul on every seed, more on +0)
# Then: npx tsx bench/research/paired-evals.ts --home OUT/home --dataset OUT/held-K.jsonl \
#         --rows ctl=RUN/3000,ul=OUT/ul-K.quick.traj.jsonl,more=OUT/more-K.quick.traj.jsonl
# and the failure breakdown: npx sailor eval --trajectories OUT/ARM-K.quick.traj.jsonl --dataset OUT/held-K.jsonl
set -u
OUT=${1:?usage: bench/research/question-count-seeds.sh OUT [STEP...]}; shift
mkdir -p "$OUT/home"; OUT=$(cd "$OUT" && pwd)
export SAILOR_HOME=$OUT/home
L="--kinds none --anchor-prob 1 --max-constraints 0 --min-edges 1 --max-edges 1 --per-shape 100000"
MORE=${MORE:-3200} # asked for; the 20000-edge graph gives about 2900

data() { # K: the quick preset's data with the wizard's seeds + K, and the larger training set off its held-out edges
  local k=$1
  [ -s "$OUT/quick.json" ] || npx sailor kg build --out "$OUT/quick.json" --rng 7 --max-edges 12000
  [ -s "$OUT/g20.json" ] || npx sailor kg build --out "$OUT/g20.json" --rng 7 --max-edges 20000
  [ -s "$OUT/train1600-$k.jsonl" ] || npx sailor synth --graph "$OUT/quick.json" --count 1600 --rng $((1 + k)) --out "$OUT/train1600-$k.jsonl" $L
  [ -s "$OUT/held-$k.jsonl" ] || npx sailor synth --graph "$OUT/quick.json" --count 300 --rng $((2 + k)) --out "$OUT/held-$k.jsonl" --exclude "$OUT/train1600-$k.jsonl" $L
  # exit 1 when the graph's facts run out: the set is written with what could be verified
  [ -s "$OUT/train$MORE-$k.jsonl" ] || npx sailor synth --graph "$OUT/g20.json" --count "$MORE" --rng $((1 + k)) --out "$OUT/train$MORE-$k.jsonl" --exclude "$OUT/held-$k.jsonl" $L || true
  cat > "$OUT/ctl-$k.json" <<J
{ "name": "quick preset, seed +$k", "rng": $((1 + k)), "data": { "graphFile": "quick.json", "datasetFile": "train1600-$k.jsonl", "heldOutFile": "held-$k.jsonl" } }
J
  cat > "$OUT/ul-$k.json" <<J
{ "name": "quick preset with unlikelihood, seed +$k", "rng": $((1 + k)), "data": { "graphFile": "quick.json", "datasetFile": "train1600-$k.jsonl", "heldOutFile": "held-$k.jsonl" }, "unlikelihood": { "weight": 1 } }
J
  cat > "$OUT/more-$k.json" <<J
{ "name": "quick preset on the 20000-edge graph's questions, seed +$k", "rng": $((1 + k)), "data": { "graphFile": "g20.json", "datasetFile": "train$MORE-$k.jsonl", "heldOutFile": "held-$k.jsonl" } }
J
}

train() { # ARM K: the run, timed, then its final checkpoint greedy on the quick graph's web (the paired figure)
  local log=$OUT/$1-$2.log run
  { date; uptime; } > "$log"
  /usr/bin/time -v npx sailor train --config "$OUT/$1-$2.json" >> "$log" 2>&1
  { date; uptime; } >> "$log"
  run=$(ls -t "$SAILOR_HOME/runs" | head -1); echo "run $run" >> "$log"
  npx sailor eval --checkpoint "$run/3000" --graph "$OUT/quick.json" --dataset "$OUT/held-$2.jsonl" --out "$OUT/$1-$2.quick.traj.jsonl" > "$OUT/$1-$2.quick.eval" 2>&1
}

post() { # ARM K: the copy probe and pass@1..4 at temperature 1 on the first 100 held-out questions, on the quick graph's web
  local run; run=$(grep '^run ' "$OUT/$1-$2.log" | cut -d' ' -f2)
  local ck=$SAILOR_HOME/runs/$run/checkpoints/step-003000
  npx tsx bench/research/copy-probe.ts --checkpoint "$ck" --graph "$OUT/quick.json" --held "$OUT/held-$2.jsonl" --rft "$SAILOR_HOME/runs/$run/data/rft.jsonl" > "$OUT/$1-$2.probe" 2>&1
  npx sailor eval --checkpoint "$run/3000" --graph "$OUT/quick.json" --dataset "$OUT/held-$2.jsonl" --k 4 --n 4 --temperature 1 --limit 100 > "$OUT/$1-$2.passk" 2>&1
}

[ $# -gt 0 ] || set -- data-0 ctl-0 ul-0 more-0 data-10 ctl-10 ul-10 data-20 ctl-20 ul-20 \
  post-0-ctl post-0-ul post-0-more post-10-ctl post-10-ul post-20-ctl post-20-ul
for step in "$@"; do
  case $step in
    data-*) data "${step#data-}" ;;
    post-*) k=${step#post-}; post "${k#*-}" "${k%%-*}" ;;
    ctl-* | ul-* | more-*) train "${step%-*}" "${step##*-}" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
