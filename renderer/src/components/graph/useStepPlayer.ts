// The Graph explorer's replay of the expansion order: the step slider advances on a timer, from the start
// when it is at the end, in about nine seconds whatever the number of steps (60 to 400 ms a step).
import { onBeforeUnmount, onDeactivated, ref, type Ref } from 'vue';

export function useStepPlayer(step: Ref<number>, maxStep: Readonly<Ref<number>>) {
  const playing = ref(false);
  let timer: ReturnType<typeof setInterval> | null = null;

  function stop(): void {
    playing.value = false;
    if (timer) clearInterval(timer);
    timer = null;
  }

  function toggle(): void {
    if (playing.value) return stop();
    if (step.value >= maxStep.value) step.value = 0;
    playing.value = true;
    const every = Math.min(400, Math.max(60, Math.round(9000 / Math.max(1, maxStep.value))));
    timer = setInterval(() => {
      if (step.value >= maxStep.value) return stop();
      step.value++;
    }, every);
  }

  // A hidden section (KeepAlive) or a closed one stops replaying.
  onDeactivated(stop);
  onBeforeUnmount(stop);
  return { playing, toggle, stop };
}
