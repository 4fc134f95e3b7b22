// The new-run wizard's state, shared by its steps: the config being edited, which step is open, the
// checks (every field as it is typed, a whole step on Next, main's refusal mapped onto fields), the
// data step's lists and jobs, the checkpoints a run can start from, and the launch. RunWizard.vue
// creates it and provides it; each step component takes it with useRunWizard().
import { computed, inject, provide, reactive, ref, watch, type InjectionKey } from 'vue';
import { useRuns } from '../../../stores/runs';
import { message } from '../../../util/errors';
import { FIELDS, RL_FIELDS, buildConfig, defaultRl, defaultValues, fieldsInMessage, validate, type RlChoice, type WizardState } from '../runConfig';
import { useWizardData } from './wizardData';

export const STEPS = [
  { id: 'data', label: 'Data' },
  { id: 'model', label: 'Model' },
  { id: 'training', label: 'Training' },
  { id: 'rl', label: 'RL' },
  { id: 'review', label: 'Review' },
] as const;
export type StepId = (typeof STEPS)[number]['id'];

/** The fields each step shows: Next checks these, and a step with a bad one is marked in the header. */
export const STEP_FIELDS: Record<StepId, string[]> = {
  data: ['data.graphId', 'data.datasetId', 'data.heldOutDatasetId', 'data.rlDatasetId'],
  model: ['model.blockSize', 'tokenizer.vocabSize', 'backend', 'model.preset'],
  training: Object.keys(FIELDS).filter((p) => /^(rft|sft|env|eval|checkpoint)\./.test(p)),
  rl: [...Object.keys(RL_FIELDS), 'init.checkpoint', 'rl.algorithm', 'rl.advantage', 'rl.mode', 'rl.schedule'],
  review: ['name', 'rng'],
};

/** Test ids follow a field's dotted path: wiz-sft-steps. */
export const fieldTestId = (path: string): string => `wiz-${path.replace(/\./g, '-')}`;

/** Checkpoints of this many newest runs are offered as starting points. */
const CKPT_RUNS = 40;

export type EditedRun = WizardState & { rl: RlChoice; init: string; scratch: boolean };

function createRunWizard(onLaunched: (runId: string) => void) {
  const runs = useRuns();
  const step = ref<StepId>('data');
  const stepIndex = computed(() => STEPS.findIndex((s) => s.id === step.value));

  const state = reactive<EditedRun>({
    name: '',
    preset: 'tiny',
    backend: 'auto',
    data: { graphId: '', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' },
    values: defaultValues(),
    init: '',
    scratch: false,
    rl: defaultRl(),
  });
  const data = useWizardData(state.data);

  // ---------- checks ----------
  const errors = computed(() => validate(state, data.datasets.value));
  /** Fields whose message shows: edited ones, and all of a step after Next or Launch was tried there. */
  const shown = reactive(new Set<string>());
  const serverError = ref<string | null>(null);
  const serverFields = ref<string[]>([]);

  function errorOf(path: string): string | null {
    if (serverFields.value.includes(path)) return 'refused by the lab core: see the message on the Review step';
    return shown.has(path) ? (errors.value.get(path) ?? null) : null;
  }
  const stepHasError = (s: StepId): boolean => STEP_FIELDS[s].some((p) => errors.value.has(p) || serverFields.value.includes(p));
  /** A step marked bad in the header: it has an error the user has been shown. */
  const stepMarked = (s: StepId): boolean => stepHasError(s) && STEP_FIELDS[s].some((p) => shown.has(p) || serverFields.value.includes(p));
  function touch(path: string): void {
    shown.add(path);
    if (serverFields.value.includes(path)) serverFields.value = serverFields.value.filter((p) => p !== path);
  }

  function next(): void {
    for (const p of STEP_FIELDS[step.value]) shown.add(p);
    if (STEP_FIELDS[step.value].some((p) => errors.value.has(p))) return;
    const i = stepIndex.value;
    if (i < STEPS.length - 1) step.value = STEPS[i + 1]!.id;
  }
  function back(): void {
    const i = stepIndex.value;
    if (i > 0) step.value = STEPS[i - 1]!.id;
  }

  // ---------- stages and starting points ----------
  const rlOn = computed(() => state.rl.stage !== 'sft');
  const rlOnly = computed(() => state.rl.stage === 'rl');

  /** Checkpoints of the runs in the list, newest run first: what a run can start from. */
  const checkpointRuns = computed(() =>
    runs.list
      .slice(0, CKPT_RUNS)
      .map((r) => ({ run: r, checkpoints: runs.details.get(r.artefact.id)?.checkpoints ?? [] }))
      .filter((x) => x.checkpoints.length > 0),
  );
  async function loadCheckpoints(): Promise<void> {
    if (!runs.loaded) await runs.load();
    await Promise.all(runs.list.slice(0, CKPT_RUNS).filter((r) => !runs.details.has(r.artefact.id)).map((r) => runs.loadDetail(r.artefact.id)));
  }
  watch(
    () => state.rl.stage,
    (stage) => {
      if (stage === 'rl') void loadCheckpoints();
    },
  );
  watch(step, (s) => {
    if (s === 'model') void loadCheckpoints();
  });
  /** A run from a checkpoint takes its data from the checkpoint's run unless chosen already. */
  watch(
    () => state.init,
    (ck) => {
      const runId = /^(.*)\/(\d+|last)$/.exec(ck)?.[1];
      const from = runs.byId.get(runId ?? '')?.artefact.info.config?.data;
      if (!from) return;
      if (!state.data.graphId && from.graphId) state.data.graphId = from.graphId;
      if (!state.data.datasetId && from.datasetId) state.data.datasetId = from.datasetId;
      if (!state.data.heldOutDatasetId && from.heldOutDatasetId) state.data.heldOutDatasetId = from.heldOutDatasetId;
    },
  );

  // ---------- launch ----------
  const config = computed(() => buildConfig(state));
  const launching = ref(false);
  async function launch(): Promise<void> {
    for (const s of STEPS) for (const p of STEP_FIELDS[s.id]) shown.add(p);
    // Only the wizard's own checks block: a retry after main refused goes back to main (the data may have changed).
    const bad = STEPS.find((s) => STEP_FIELDS[s.id].some((p) => errors.value.has(p)));
    if (bad) {
      step.value = bad.id;
      return;
    }
    launching.value = true;
    serverError.value = null;
    serverFields.value = [];
    try {
      const summary = await runs.start(config.value);
      onLaunched(summary.artefact.id);
    } catch (err) {
      serverError.value = message(err);
      serverFields.value = fieldsInMessage(serverError.value);
    } finally {
      launching.value = false;
    }
  }

  return {
    step,
    stepIndex,
    state,
    data,
    errors,
    serverError,
    errorOf,
    stepMarked,
    touch,
    next,
    back,
    rlOn,
    rlOnly,
    checkpointRuns,
    config,
    launching,
    launch,
  };
}

export type RunWizard = ReturnType<typeof createRunWizard>;
const KEY: InjectionKey<RunWizard> = Symbol('run wizard');

/** Creates the wizard's state and hands it to the step components below. */
export function provideRunWizard(onLaunched: (runId: string) => void): RunWizard {
  const wizard = createRunWizard(onLaunched);
  provide(KEY, wizard);
  return wizard;
}

/** The wizard's state, in a step component. */
export function useRunWizard(): RunWizard {
  const wizard = inject(KEY);
  if (!wizard) throw new Error('useRunWizard() outside the run wizard');
  return wizard;
}
