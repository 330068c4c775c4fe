import { startTransition, useEffect, useRef, useState } from 'react';

/**
 * The value, updated at most once per `intervalMs` while it keeps changing, and always to
 * its final value (a trailing update). For views too large to redraw on every frame of a
 * slider drag (the DAG), while the list and the gauge follow every frame.
 */
export function useThrottled<T>(value: T, intervalMs: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    const wait = last.current + intervalMs - performance.now();
    // A transition: the slider's own updates interrupt the redraw instead of waiting for it.
    const show = () => {
      last.current = performance.now();
      startTransition(() => setShown(value));
    };
    if (wait <= 0) {
      show();
      return;
    }
    const t = setTimeout(show, wait);
    return () => clearTimeout(t);
  }, [value, intervalMs]);
  return shown;
}
