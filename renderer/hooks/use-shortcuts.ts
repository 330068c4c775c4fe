import { useEffect, useRef } from 'react';

/**
 * Ctrl/Cmd+O import, Ctrl/Cmd+Enter compact, Ctrl/Cmd+E export. Handlers are read through
 * a ref so the listener is installed once.
 */
export function useShortcuts(handlers: { importFiles(): void; compact(): void; exportCurrent(): void }): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const key = e.key.toLowerCase();
      if (key === 'o') {
        e.preventDefault();
        ref.current.importFiles();
      } else if (key === 'enter') {
        e.preventDefault();
        ref.current.compact();
      } else if (key === 'e') {
        e.preventDefault();
        ref.current.exportCurrent();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
