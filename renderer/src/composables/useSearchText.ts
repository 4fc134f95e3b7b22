// A search box over a store's text filter: what the box holds now, passed on to the filter 120 ms after
// the last keystroke (the list refilters once a word is typed, not on every letter), and following the
// filter when something else changes it (cleared, set from another view).
import { ref, watch, type Ref } from 'vue';

export function useSearchText(filters: { text: string }, delayMs = 120): Ref<string> {
  const text = ref(filters.text);
  let timer: ReturnType<typeof setTimeout> | null = null;
  watch(text, (t) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => (filters.text = t), delayMs);
  });
  watch(
    () => filters.text,
    (t) => {
      if (t !== text.value) text.value = t;
    },
  );
  return text;
}
