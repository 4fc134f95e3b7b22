// One way every form checks its fields: the contract's schema for what the form sends (a job kind's params, as
// main's job manager checks them), each issue shown beside its field under the form's label, in words; a
// field's message shows once it was edited, or every field's once the user tried to submit, and goes as soon
// as the value is fixed. What main refused (the launcher's issues) shows the same way until the form changes.
import { computed, reactive, ref, watch, type Ref } from 'vue';
import { jobParamIssues, labelIssues, type FieldIssue, type JobKind } from '@contract';

export interface FieldChecksOptions {
  /** The job kind whose params schema (contract/jobs.ts) the form's params must pass. */
  kind: JobKind;
  /** The params the form would send now. */
  params: () => unknown;
  /** Param path -> what the form calls the field ("maxEdges" -> "max edges"). */
  labels: Readonly<Record<string, string>>;
  /** What main refused on the last start (useJobLauncher's `issues`); cleared when the params change. */
  refused?: Ref<FieldIssue[] | null>;
  /** Checks the schema cannot make (a choice that is not in a list): more issues, by path. */
  extra?: () => FieldIssue[];
}

export function useFieldChecks(o: FieldChecksOptions) {
  const touched = reactive(new Set<string>());
  const tried = ref(false);
  const own = computed(() => [...jobParamIssues(o.kind, o.params()), ...(o.extra?.() ?? [])]);
  const all = computed(() => labelIssues([...own.value, ...(o.refused?.value ?? [])], o.labels));
  const refusedPaths = computed(() => new Set((o.refused?.value ?? []).map((i) => i.path)));

  // A refusal is about the values sent: once the form changes, it no longer applies.
  if (o.refused) {
    const refused = o.refused;
    watch(
      () => JSON.stringify(o.params()),
      () => {
        if (refused.value) refused.value = null;
      },
    );
  }

  /** The message beside a field ("max edges: must be at least 10"), or null when it is fine or not yet shown. */
  function errorOf(path: string): string | null {
    if (!tried.value && !touched.has(path) && !refusedPaths.value.has(path)) return null;
    return all.value.byField.get(path) ?? null;
  }
  /** Marks a field as edited: its message shows from now on. */
  function touch(path: string): void {
    touched.add(path);
  }
  /** Before a submit: shows every message; true when nothing blocks. */
  function check(): boolean {
    tried.value = true;
    return own.value.length === 0;
  }
  /** Issues at no field the form shows, in words (the form lists them by its submit button). */
  const other = computed(() => (tried.value || refusedPaths.value.size ? all.value.other : []));
  return { errorOf, touch, check, other, issues: own };
}

/** What a form's fields and messages need of useFieldChecks (CheckedField.vue, FieldMessages.vue). */
export type FieldChecks = Pick<ReturnType<typeof useFieldChecks>, 'errorOf' | 'touch' | 'other'>;
