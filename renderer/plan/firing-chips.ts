/**
 * The firings listed as chips: all of them up to MAX_FIRING_CHIPS, else the first ones and
 * the selected one (a window or masking replay fires at every call: 50,000 buttons would
 * freeze the page); the chart's markers reach every firing.
 */
export const MAX_FIRING_CHIPS = 200;

export function chipEvents<E extends { call: number }>(events: readonly E[], selected: number | null): readonly E[] {
  if (events.length <= MAX_FIRING_CHIPS) return events;
  const head = events.slice(0, MAX_FIRING_CHIPS);
  const picked = selected === null ? undefined : events.find((e, i) => i >= MAX_FIRING_CHIPS && e.call === selected);
  return picked ? [...head, picked] : head;
}
