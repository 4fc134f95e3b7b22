"""Sailor Lab's reward for verl: reward.custom_reward_function.path=<this file>, name=compute_score.

A port of the lab's main/lab/agent/reward.ts with the turn parser of main/lab/agent/react.ts and the answer
normalisation of main/lab/agent/text.ts, kept equal to them by the lab's tests (tests/unit/verl-reward.test.ts):
R = 0.1 * format + 0.9 * answer, where format is 1 for a wholly well-formed ReAct episode (every turn a
<think> then exactly one <tool_call> or <answer>, ending with an answer) and answer is the normalised exact
match (or word F1) against the gold answer and its aliases.

verl hands over the response decoded without special tokens, so the episode's turns are recovered from the
chat template's tool messages: "\\nuser\\n<tool_response>\\n...\\n</tool_response>\\nassistant\\n" between
assistant turns (Qwen2.5/Qwen3 templates; the <|im_start|>/<|im_end|> tokens may also be present).
Standard library only.
"""

import json
import math
import re
import unicodedata

# Written by `sailor export verl` from --reward (em | f1); the rest are the lab's defaults.
REWARD_OPTIONS = {"mode": "em", "format_weight": 0.1, "answer_weight": 0.9, "combine": "sum", "format_credit": "episode"}

# JavaScript's \s, so trims and splits match the lab's TypeScript character for character.
JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_NON_ASCII = re.compile("[^ -~" + re.escape(JS_WS) + "]")
_MARKS = re.compile("[\u0300-\u036f]")
_SPECIAL = re.compile(r"<\|(?:im_start|im_end|endoftext)\|>")
_TOOL_MESSAGE = re.compile(
    r"\n?(?:<\|im_start\|>)?user\n<tool_response>\n(.*?)\n</tool_response>(?:<\|im_end\|>)?\n?(?:<\|im_start\|>)?(?:assistant\n)?",
    re.S,
)


# ---------- answers (text.ts) ----------


def words(text):
    """Lowercase, accents removed, letters and digits kept; everything else separates words."""
    folded = text.lower() if not _NON_ASCII.search(text) else _MARKS.sub("", unicodedata.normalize("NFKD", text)).lower()
    out, cur = [], []
    for ch in folded:
        if unicodedata.category(ch)[0] in "LN":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def normalize_answer(text):
    return " ".join(w for w in words(text) if w not in ("a", "an", "the"))


# Standard forms (answer-forms.ts): "City of X" names X, "St." is "Saint", "&" and "and" meet.
_SETTLEMENT_PREFIXES = ("city of", "town of", "village of", "municipality of", "borough of", "township of")
_ABBREVIATIONS = {"st": "saint", "mt": "mount", "ft": "fort"}


def standard_form(text):
    ws = [_ABBREVIATIONS.get(w, w) for w in normalize_answer(text).split(" ") if w not in ("", "and")]
    joined = " ".join(ws)
    for prefix in _SETTLEMENT_PREFIXES:
        if joined.startswith(prefix + " "):
            return joined[len(prefix) + 1 :]
    return joined


def exact_match(prediction, golds):
    if prediction is None:
        return 0
    p = normalize_answer(prediction)
    if p == "":
        return 0
    ps = standard_form(prediction)
    return 1 if any(normalize_answer(g) == p or (ps != "" and standard_form(g) == ps) for g in golds) else 0


def token_f1(prediction, golds):
    if prediction is None:
        return 0
    p = [w for w in normalize_answer(prediction).split(" ") if w]
    best = 0
    for g in golds:
        t = [w for w in normalize_answer(g).split(" ") if w]
        if not p or not t:
            continue
        counts = {}
        for w in t:
            counts[w] = counts.get(w, 0) + 1
        common = 0
        for w in p:
            if counts.get(w, 0) > 0:
                common += 1
                counts[w] -= 1
        if common == 0:
            continue
        precision = common / len(p)
        recall = common / len(t)
        best = max(best, (2 * precision * recall) / (precision + recall))
    return best


# ---------- one turn (react.ts parseTurn) ----------

TOOLS = ("search", "visit")
_PROTOCOL_TAGS = ("<think>", "</think>", "<tool_call>", "</tool_call>", "<answer>", "</answer>")


def _string_list(v):
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def _args_ok(name, args):
    if name == "search":
        return _string_list(args.get("query"))
    if name == "visit":
        return _string_list(args.get("url")) and isinstance(args.get("goal"), str)
    return isinstance(args.get("answer"), str)  # answer


def _first(text, needles, start=0):
    best = None
    for n in needles:
        at = text.find(n, start)
        if at >= 0 and (best is None or at < best[0]):
            best = (at, n)
    return best


def _reject_constant(name):
    raise ValueError("not JSON: " + name)  # JSON.parse has no NaN or Infinity


def parse_turn(output):
    """(kind, issues, answer): kind is tool | answer | invalid | empty; answer only for kind answer."""
    issues = []
    text = output
    cut = text.find("<tool_response>")
    if cut >= 0:
        text = text[:cut]
        issues.append("hallucinated_observation")
    text = text.rstrip(JS_WS)
    if text.strip(JS_WS) == "":
        return "empty", issues + ["empty"], None
    think, rest = "", text
    lead = text.lstrip(JS_WS)
    if lead.startswith("<think>"):
        body = lead[len("<think>"):]
        close = body.find("</think>")
        if close >= 0:
            think, rest = body[:close].strip(JS_WS), body[close + len("</think>"):]
        else:
            issues.append("unclosed_think")
            act = _first(body, ("<tool_call>", "<answer>"))
            think = (body[: act[0]] if act else body).strip(JS_WS)
            rest = body[act[0]:] if act else ""
    else:
        issues.append("missing_think")
        close = lead.find("</think>")
        if close >= 0:
            think, rest = lead[:close].strip(JS_WS), lead[close + len("</think>"):]
        else:
            rest = lead
    act = _first(rest, ("<tool_call>", "<answer>"))
    if act is None:
        return "invalid", issues + ["no_action"], None
    if rest[: act[0]].strip(JS_WS) != "":
        issues.append("text_outside_tags")
    close_tag = "</tool_call>" if act[1] == "<tool_call>" else "</answer>"
    body_start = act[0] + len(act[1])
    close_at = rest.find(close_tag, body_start)
    body = (rest[body_start:close_at] if close_at >= 0 else rest[body_start:]).strip(JS_WS)
    after = rest[close_at + len(close_tag):] if close_at >= 0 else ""
    if _first(after, ("<tool_call>", "<answer>")):
        issues.append("multiple_actions")
    elif after.strip(JS_WS) != "":
        issues.append("text_outside_tags")
    if any(tag in think or tag in body for tag in _PROTOCOL_TAGS):
        issues.append("nested_tags")
    if act[1] == "<answer>":
        if close_at < 0:
            issues.append("unclosed_answer")
        return "answer", issues, body
    if close_at < 0:
        return "invalid", issues + ["unclosed_tool_call"], None
    try:
        call = json.loads(body, parse_constant=_reject_constant)
    except ValueError:
        return "invalid", issues + ["invalid_json"], None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return "invalid", issues + ["invalid_json"], None
    name = call["name"]
    if name not in TOOLS and name != "answer":
        return "invalid", issues + ["unknown_tool"], None
    args = call.get("arguments")
    if not isinstance(args, dict) or not _args_ok(name, args):
        return "invalid", issues + ["bad_arguments"], None
    if name == "answer":
        return "answer", issues, args["answer"]
    return "tool", issues, None


# ---------- the episode ----------


def split_turns(solution_str):
    """The assistant turns of a decoded multi-turn response, each with whether a tool response followed it."""
    turns, pos = [], 0
    for m in _TOOL_MESSAGE.finditer(solution_str):
        turns.append((_SPECIAL.sub("", solution_str[pos : m.start()]), True))
        pos = m.end()
    turns.append((_SPECIAL.sub("", solution_str[pos:]), False))
    return turns


def episode(solution_str):
    """The steps as the lab's runtime records them: [(kind, issues, observed)] and the prediction."""
    steps, prediction = [], None
    for text, observed in split_turns(solution_str):
        kind, issues, answer = parse_turn(text)
        if kind == "empty":
            if text.strip(JS_WS) != "":
                steps.append((kind, issues, observed))
            break
        steps.append((kind, issues, observed))
        if kind == "answer":
            prediction = answer.strip(JS_WS)
            break
    return steps, prediction


def _clean(step, last):
    kind, issues, observed = step
    return kind in ("tool", "answer") and not issues and (last or observed)


def format_score(steps, prediction):
    if not steps or prediction is None:
        return 0
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        if not _clean(step, last) or last != (step[0] == "answer"):
            return 0
    return 1


def turn_format_score(steps, prediction):
    answered = bool(steps) and steps[-1][0] == "answer" and prediction is not None
    turns = len(steps) + (0 if answered else 1)
    clean = sum(1 for i, s in enumerate(steps) if _clean(s, i == len(steps) - 1))
    return 0 if turns == 0 else (clean / turns) * (1 if answered else 0.5)


def _js_round6(x):
    return math.floor(x * 1e6 + 0.5) / 1e6


def gold_answers(ground_truth):
    target = ground_truth.get("target", []) if isinstance(ground_truth, dict) else ground_truth
    if isinstance(target, str):
        target = [target]
    return [g for g in list(target) if isinstance(g, str) and g.strip(JS_WS) != ""]


def lab_reward(solution_str, ground_truth, options=None):
    opts = dict(REWARD_OPTIONS, **(options or {}))
    steps, prediction = episode(solution_str)
    golds = gold_answers(ground_truth)
    fmt = turn_format_score(steps, prediction) if opts["format_credit"] == "turns" else format_score(steps, prediction)
    answer = token_f1(prediction, golds) if opts["mode"] == "f1" else exact_match(prediction, golds)
    total = fmt * answer if opts["combine"] == "product" else opts["format_weight"] * fmt + opts["answer_weight"] * answer
    return {"score": _js_round6(total), "format": fmt, "answer": answer, "prediction": prediction}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward: the lab's total as `score`, with `acc` (the answer score) for DAPO's filter_groups."""
    r = lab_reward(solution_str, ground_truth, kwargs.get("reward_options"))
    return {"score": r["score"], "acc": float(r["answer"]), "format": float(r["format"])}
