/** Drop transcripts (or a folder of them) anywhere on the window to import them; an overlay says so while dragging. */
import { useEffect, useRef, useState } from 'react';
import { entriesOfDrop, pickedFromEntries, type PickedFile } from '../hooks/picked-files.js';
import { actions } from '../state/store.js';

export function useFileDrop(onFiles: (files: PickedFile[]) => void): boolean {
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const handler = useRef(onFiles);
  handler.current = onFiles;
  useEffect(() => {
    const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
    const onEnter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current++;
      setDragging(true);
    };
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const onLeave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    };
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      // Always prevent the default: a dropped file must never navigate the window away.
      e.preventDefault();
      depth.current = 0;
      setDragging(false);
      const entries = entriesOfDrop(e.dataTransfer);
      if (entries) {
        pickedFromEntries(entries).then(
          (files) => (files.length > 0 ? handler.current(files) : actions.notify({ kind: 'info', title: 'No transcripts in the dropped folder' })),
          (err: unknown) => actions.notify({ kind: 'error', title: 'Could not read the dropped folder', message: (err as Error).message }),
        );
        return;
      }
      const files = [...(e.dataTransfer?.files ?? [])].map((file) => ({ file, path: file.name }));
      if (files.length > 0) handler.current(files);
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, []);
  return dragging;
}

export function DropOverlay() {
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-card">
        <div className="drop-title">Drop files or a folder to import</div>
        <div className="muted">Claude Code JSONL, OpenAI / Anthropic messages, OpenHands, SWE-agent, ShareGPT, Codex</div>
      </div>
    </div>
  );
}
