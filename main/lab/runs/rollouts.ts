// An RL step's rollouts as the trainer stores them, and what the group view makes of them.
//
//   runs/<id>/rollouts/step-000123.jsonl    line 1: the step's header
//     {"format": "sailor.traj/1", "kind": "rl", "run": …, "step": …, "policy_version": …,
//      "plan": {"method": "dupo", "groups": [{"group": "<step>/<qa_id>", "qa_id": …, "rewards": […], "mean": …,
//               "std": …, "advantages": […], "status": "kept" | "dropped" | "duplicated", "copies": n}],
//               "zero_std": n, "duplicated": n, "refilled": n, "skip": bool},
//      "summary": {the step's metrics}}
//   then one sailor.traj/1 trajectory per line, with the extension fields `group`, `advantage`,
//   `policy_version` and `staleness`; a group's trajectories appear in the order of its `rewards`.
import { existsSync } from 'node:fs';
import { RL_GROUP_STATUSES, runSetId, type RlGroupPlan, type RlGroupStatus, type RlRollout, type RlStepPlan, type RlStepView, type TrajSummary } from '../contract';
import { TRAJ_FORMAT, type Trajectory } from '../formats';
import { inputError, jsonSyntaxMessage } from '../base/errors';
import { firstInputLine, readJsonl } from '../store/files';
import { describeValue, Fields, isObj, type Obj } from '../util/fields';
import { rolloutSteps, rolloutsFile } from './layout';

// Where the files are is written down once, in layout.ts.
export { rolloutSteps, rolloutsFile };

export const RL_KIND = 'rl';

/** The header line of a step's rollouts file (see the top of this file). */
export interface RlStepHeader {
  format: typeof TRAJ_FORMAT;
  kind: typeof RL_KIND;
  run: string;
  step: number;
  policy_version: number;
  plan: RlStepPlan;
  summary: Record<string, number>;
  [extra: string]: unknown;
}

class HeaderFields extends Fields {
  int(v: unknown, field: string, min = 0): number {
    const n = this.num(v, field);
    if (!Number.isInteger(n) || n < min) throw this.fail(field, `expected a whole number >= ${min}, got ${n}`);
    return n;
  }

  nums(v: unknown, field: string): number[] {
    return this.arr(v, field).map((x, i) => this.num(x, `${field}[${i}]`));
  }

  status(v: unknown, field: string): RlGroupStatus {
    if (!(RL_GROUP_STATUSES as readonly unknown[]).includes(v)) throw this.fail(field, `expected one of ${RL_GROUP_STATUSES.join(', ')}, got ${describeValue(v)}`);
    return v as RlGroupStatus;
  }
}

function group(f: HeaderFields, raw: unknown, field: string, step: number): RlGroupPlan {
  const g = f.obj(raw, field);
  const qa_id = f.str(g.qa_id, `${field}.qa_id`);
  const rewards = f.nums(g.rewards, `${field}.rewards`);
  const advantages = f.nums(g.advantages, `${field}.advantages`);
  if (advantages.length !== rewards.length) throw f.fail(`${field}.advantages`, `has ${advantages.length} entries for ${rewards.length} rewards`);
  const mean = g.mean === undefined ? rewards.reduce((a, r) => a + r, 0) / Math.max(1, rewards.length) : f.num(g.mean, `${field}.mean`);
  const std = g.std === undefined ? Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / Math.max(1, rewards.length)) : f.num(g.std, `${field}.std`);
  return {
    group: g.group === undefined ? `${step}/${qa_id}` : f.str(g.group, `${field}.group`),
    qa_id,
    rewards,
    mean,
    std,
    advantages,
    status: f.status(g.status, `${field}.status`),
    copies: g.copies === undefined ? 1 : f.int(g.copies, `${field}.copies`),
  };
}

/** Checks a rollouts file's header line; errors name the file, line 1 and the field. */
export function checkRlHeader(value: unknown, file: string, line = 1): RlStepHeader {
  const f = new HeaderFields(file, line);
  const h = f.obj(value, '');
  if (h.format !== TRAJ_FORMAT) throw f.fail('format', `expected '${TRAJ_FORMAT}', got ${describeValue(h.format)}`);
  if (h.kind !== RL_KIND) throw f.fail('kind', `expected '${RL_KIND}', got ${describeValue(h.kind)}`);
  const step = f.int(h.step, 'step');
  const p = f.obj(h.plan, 'plan');
  const groups = f.arr(p.groups, 'plan.groups').map((g, i) => group(f, g, `plan.groups[${i}]`, step));
  const count = (s: RlGroupStatus): number => groups.filter((g) => g.status === s).length;
  const plan: RlStepPlan = {
    method: f.str(p.method, 'plan.method'),
    groups,
    zero_std: p.zero_std === undefined ? groups.filter((g) => g.std === 0).length : f.int(p.zero_std, 'plan.zero_std'),
    duplicated: p.duplicated === undefined ? count('duplicated') : f.int(p.duplicated, 'plan.duplicated'),
    refilled: p.refilled === undefined ? 0 : f.int(p.refilled, 'plan.refilled'),
    skip: p.skip === undefined ? false : p.skip === true,
  };
  if (p.skip !== undefined && typeof p.skip !== 'boolean') throw f.fail('plan.skip', `expected true or false, got ${describeValue(p.skip)}`);
  const summary: Record<string, number> = {};
  if (h.summary !== undefined) for (const [k, v] of Object.entries(f.obj(h.summary, 'summary'))) if (typeof v === 'number' && Number.isFinite(v)) summary[k] = v;
  return {
    ...h,
    format: TRAJ_FORMAT,
    kind: RL_KIND,
    run: typeof h.run === 'string' ? h.run : '',
    step,
    policy_version: h.policy_version === undefined ? step : f.int(h.policy_version, 'policy_version'),
    plan,
    summary,
  };
}

/** Reads only the header line of a step's rollouts file (cheap: the trajectories are not parsed). */
export function readRlHeader(file: string): RlStepHeader {
  if (!existsSync(file)) throw inputError(file, 'no such file');
  const first = firstInputLine(file).trim();
  let value: unknown;
  try {
    value = JSON.parse(first);
  } catch (err) {
    throw inputError(file, `not valid JSON (${jsonSyntaxMessage(err)})`, { line: 1 });
  }
  return checkRlHeader(value, file);
}

/** A step's rollouts file: the checked header and the trajectories (as written; lines torn by a crash skipped). */
export function readRlStep(file: string): { header: RlStepHeader; trajectories: Trajectory[] } {
  const { records } = readJsonl(file);
  const first = records[0];
  if (!first) throw inputError(file, 'empty: expected a header line');
  const header = checkRlHeader(first.value, file, first.line);
  const trajectories = records.slice(1).map((r) => {
    if (!isObj(r.value) || typeof (r.value as Obj).qa_id !== 'string') throw inputError(file, 'expected a trajectory with a qa_id', { line: r.line, field: 'qa_id' });
    return r.value as Trajectory;
  });
  return { header, trajectories };
}

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The group view of a step: each group of the plan with its rollouts matched to the trajectory lines (by
 * their `group` field, in file order; lines without one match by qa id), so a cell opens its trajectory.
 * `rows` are the set's trajectory summaries as the inspector lists them (their ids are what it opens).
 */
export function rlStepView(runId: string, header: RlStepHeader, rows: readonly TrajSummary[], questions: ReadonlyMap<string, string> = new Map()): RlStepView {
  const byGroup = new Map<string, TrajSummary[]>();
  const byQa = new Map<string, TrajSummary[]>();
  for (const r of rows) {
    if (r.group !== undefined) (byGroup.get(r.group) ?? byGroup.set(r.group, []).get(r.group)!).push(r);
    else (byQa.get(r.qa_id) ?? byQa.set(r.qa_id, []).get(r.qa_id)!).push(r);
  }
  const groups = header.plan.groups.map((g) => {
    // A queue per group id: a question asked twice in one step (a DAPO refill) takes the next G lines.
    const queue = byGroup.get(g.group) ?? byQa.get(g.qa_id) ?? [];
    const mine = queue.splice(0, g.rewards.length);
    const rollouts: RlRollout[] = g.rewards.map((reward, i) => {
      const t = mine[i];
      return {
        trajId: t?.id ?? null,
        reward,
        advantage: numOrNull(t?.advantage) ?? g.advantages[i]!,
        answer: t ? t.reward.answer : null,
        format: t ? t.reward.format : null,
        termination: t ? t.termination : null,
        policy_version: numOrNull(t?.policy_version),
        staleness: numOrNull(t?.staleness),
        turnAdvantages: t?.turn_advantages ?? null,
      };
    });
    return { ...g, question: questions.get(g.qa_id) ?? null, rollouts };
  });
  const { method, zero_std, duplicated, refilled, skip } = header.plan;
  return {
    runId,
    step: header.step,
    setId: runSetId({ kind: 'rl', runId, step: header.step }),
    policyVersion: header.policy_version,
    plan: { method, zero_std, duplicated, refilled, skip },
    summary: header.summary,
    groups,
  };
}
