// RL rollouts on their own thread (ASearcher's decoupling, on one machine): a worker thread with its own
// backend, a copy of the policy, the tokenizer and the simulated web plays episodes while the learner's
// thread updates the weights. After every update the learner publishes the weights (shared-weights.ts);
// the rollout thread loads the newest before each episode and reports the version it played under, which
// is what the async buffer's staleness rules read. So rollouts and updates really overlap on two cores.
import type { Worker } from 'node:worker_threads';
import type { QA, Trajectory } from '../../formats';
import type { RolloutOptions } from '../../agent/rollout';
import type { WebOptions } from '../../agent/web';
import { LabError } from '../../base/errors';
import type { GPT, GPTConfig } from '../../model/gpt';
import { PublishedWeights } from '../../model/shared-weights';
import type { Tokenizer, TokenizerJSON } from '../../model/tokenizer';
import { scriptBeside, spawnWorker } from '../../util/worker-spawn';
import type { SampledTurn } from '../policy/policy';

/** What the rollout thread starts with (its workerData). */
export interface RolloutThreadInit {
  backend: string;
  config: GPTConfig;
  weights: SharedArrayBuffer;
  tokenizer: TokenizerJSON;
  graphFile: string;
  web: Partial<WebOptions>;
  policy: { temperature: number; topP?: number };
  rollout: Omit<RolloutOptions, 'seed' | 'judge' | 'countTokens'>;
}

export type ToRolloutThread = { type: 'rollout'; id: number; qa: QA; sample: number; seed: number; name: string } | { type: 'stop' };

export type FromRolloutThread =
  | { type: 'ready' }
  | { type: 'rollout'; id: number; traj: Trajectory; turns: SampledTurn[]; version: number }
  | { type: 'error'; id: number; message: string };

export class RolloutThread {
  private readonly pending = new Map<number, { resolve: (r: { traj: Trajectory; turns: SampledTurn[]; version: number }) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly weights: PublishedWeights,
  ) {
    worker.on('message', (msg: FromRolloutThread) => {
      if (msg.type === 'ready') return;
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === 'error') p?.reject(new LabError(msg.message.includes('RL stage ended') ? 'cancelled' : 'internal', `rollout thread: ${msg.message}`));
      else p?.resolve(msg);
    });
    const fail = (err: Error): void => {
      this.failure = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', (err) => fail(new LabError('internal', `rollout thread failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new LabError('internal', `rollout thread exited (code ${code})`)));
  }

  /** Starts the thread with the model's current weights as `version` and waits until it can play. */
  static async start(model: GPT, version: number, tok: Tokenizer, init: Omit<RolloutThreadInit, 'config' | 'weights' | 'tokenizer'>): Promise<RolloutThread> {
    const weights = PublishedWeights.create(model);
    weights.publish(model, version);
    const worker = spawnWorker(scriptBeside(import.meta.url, 'rollout-worker.ts', 'rollout.js'), { ...init, config: model.config, weights: weights.shared, tokenizer: tok.toJSON() } satisfies RolloutThreadInit);
    const thread = new RolloutThread(worker, weights);
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new LabError('internal', `rollout thread exited while starting (code ${code})`)));
    });
    return thread;
  }

  /** Makes the model's weights the ones episodes start from (after each update). */
  publish(model: GPT, version: number): void {
    this.weights.publish(model, version);
  }

  /** One episode of `qa` (attempt `sample`, seeded by `seed`) under the newest published weights. */
  run(qa: QA, sample: number, seed: number, name: string): Promise<{ traj: Trajectory; turns: SampledTurn[]; version: number }> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'rollout', id, qa, sample, seed, name } satisfies ToRolloutThread);
    });
  }

  /** Episodes under way end at their next turn (their promises reject as cancelled). */
  stop(): void {
    this.worker.postMessage({ type: 'stop' } satisfies ToRolloutThread);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
