// The new-run wizard's state, shared by its steps: the config being edited, which step is open, the
// checks (every field as it is typed, a whole step on Next, main's refusal mapped onto fields), the
// data step's lists and jobs, the checkpoints a run can start from, and the launch. RunWizard.vue
// creates it and provides it; each step component takes it with useRunWizard().
import { computed, inject, onBeforeUnmount, provide, reactive, ref, watch, type InjectionKey } from 'vue';
import { labelIssues, presetById, type FieldIssue, type PresetId, type RunEstimate } from '@contract';
import { useJobs } from '../../../stores/jobs';
import { useRuns } from '../../../stores/runs';
import { issuesOf, message } from '../../../util/errors';
import { useWizardMemory } from '../../../stores/wizard';
import { CONFIG_LABELS, CONFIG_MENTIONS, FIELDS, RL_FIELDS, buildConfig, defaultRl, defaultValues, fieldMessage, validate, type DataChoice, type RlChoice, type Values, type WizardState } from '../runConfig';
import { presetForms, useWizardData } from './wizardData';

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

export type EditedRun = WizardState & { rl: RlChoice; init: string; scratch: boolean; presetId: PresetId };

/** A wizard opened on a finished run ("Train further"): RL from its last checkpoint on the same data. */
export interface WizardPrefill {
  init: string;
  data: DataChoice;
  /** The run's own evaluation and environment settings (runConfig.ts carriedValues). */
  values?: Partial<Values>;
}

function createRunWizard(onLaunched: (runId: string) => void, prefill: WizardPrefill | null) {
  const runs = useRuns();
  const jobs = useJobs();
  const memory = useWizardMemory();
  // Train further goes straight to the review: the run's data and checkpoint are the choices already.
  const step = ref<StepId>(prefill ? 'review' : 'data');
  const stepIndex = computed(() => STEPS.findIndex((s) => s.id === step.value));

  const state = reactive<EditedRun>({
    name: '',
    preset: 'tiny',
    backend: 'auto',
    // The data picked last time the wizard was open (or the run's, to train it further).
    data: { graphId: '', datasetId: '', heldOutDatasetId: '', rlDatasetId: '', ...(prefill?.data ?? memory.data ?? {}) },
    values: { ...defaultValues(), ...prefill?.values },
    init: prefill?.init ?? '',
    scratch: false,
    rl: { ...defaultRl(), ...(prefill ? { stage: 'rl' as const } : {}) },
    presetId: 'quick',
  });
  const data = useWizardData(state.data, memory.make);
  onBeforeUnmount(() => memory.remember(state.data, data.make, state.presetId));

  /**
   * A preset (contract WIZARD_PRESETS): its data forms, SFT steps, checkpoints and RL stage; every other field
   * back to its default. `keepForms`: the data forms as they are (remembered from the last opening).
   */
  function applyPreset(id: PresetId, keepForms = false): void {
    const p = presetById(id);
    if (!p) return;
    state.presetId = id;
    if (!keepForms) {
      Object.assign(data.make, presetForms(p));
      data.repick();
    }
    const defaults = defaultValues();
    state.values['sft.steps'] = p.config.sft?.steps ?? defaults['sft.steps'];
    state.values['checkpoint.every'] = p.config.checkpoint?.every ?? defaults['checkpoint.every'];
    const rl = defaultRl();
    if (p.config.rl) {
      rl.stage = 'sft+rl';
      for (const [k, v] of Object.entries(p.config.rl)) {
        if (k === 'pool') rl.pool = v as RlChoice['pool'];
        else if (`rl.${k}` in rl.values) rl.values[`rl.${k}` as keyof RlChoice['values']] = v as number;
      }
    }
    state.rl = rl;
    state.relabel = p.config.relabel ? { ...p.config.relabel } : undefined;
  }
  if (!prefill && memory.presetId !== 'quick') applyPreset(memory.presetId, true);

  // ---------- checks ----------
  const errors = computed(() => validate(state, data.datasets.value));
  /** Fields whose message shows: edited ones, and all of a step after Next or Launch was tried there. */
  const shown = reactive(new Set<string>());
  /** Main's refusal of the last launch that names no field (in words); and the fields it named, in words. */
  const serverError = ref<string | null>(null);
  const serverIssues = ref<FieldIssue[]>([]);
  const serverByField = computed(() => labelIssues(serverIssues.value, CONFIG_LABELS, CONFIG_MENTIONS));

  /** The message beside a field, led by its label ("SFT steps: …"): the wizard's own check first, then main's. */
  function errorOf(path: string): string | null {
    const own = shown.has(path) ? errors.value.get(path) : undefined;
    if (own !== undefined) return fieldMessage(path, own);
    return serverByField.value.byField.get(path) ?? null;
  }
  const serverHas = (p: string): boolean => serverByField.value.byField.has(p);
  /** A step marked bad in the header: it has an error the user has been shown (cleared as soon as it is fixed). */
  const stepMarked = (s: StepId): boolean => STEP_FIELDS[s].some((p) => (shown.has(p) && errors.value.has(p)) || serverHas(p));
  function touch(path: string): void {
    shown.add(path);
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
  // Main's refusal was about the config it got: any change is the user fixing it, so it goes.
  watch(
    () => JSON.stringify(config.value),
    () => {
      serverIssues.value = [];
      serverError.value = null;
    },
  );
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
    serverIssues.value = [];
    try {
      // The review's newest warm-up: the run's time left starts from it until the run has measured its own stages.
      const warmup = jobs.list.find((j) => j.kind === 'estimate' && j.status === 'succeeded')?.result as RunEstimate | undefined;
      const summary = await runs.start(config.value, warmup?.measured);
      onLaunched(summary.artefact.id);
    } catch (err) {
      const issues = issuesOf(err);
      if (issues) {
        serverIssues.value = issues;
        const first = STEPS.find((s) => STEP_FIELDS[s.id].some(serverHas));
        if (first) step.value = first.id;
        const other = serverByField.value.other;
        serverError.value = other.length ? other.join('; ') : null;
      } else serverError.value = message(err);
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
    applyPreset,
  };
}

export type RunWizard = ReturnType<typeof createRunWizard>;
const KEY: InjectionKey<RunWizard> = Symbol('run wizard');

/** Creates the wizard's state and hands it to the step components below. */
export function provideRunWizard(onLaunched: (runId: string) => void, prefill: WizardPrefill | null = null): RunWizard {
  const wizard = createRunWizard(onLaunched, prefill);
  provide(KEY, wizard);
  return wizard;
}

/** The wizard's state, in a step component. */
export function useRunWizard(): RunWizard {
  const wizard = inject(KEY);
  if (!wizard) throw new Error('useRunWizard() outside the run wizard');
  return wizard;
}
