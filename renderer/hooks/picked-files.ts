/**
 * Files the user hands the window (file input, folder input, drag-and-drop) with the path
 * each has inside what was picked: `project/<session>.jsonl`, `project/<session>/subagents/agent-x.jsonl`.
 * The relative path is what lets the main process link a subagent file to its parent, as
 * the CLI links files it finds on disk (contract: importTexts).
 */
export interface PickedFile {
  file: File;
  /** Path inside the picked folder (the bare name for a lone file). */
  path: string;
}

/**
 * What a folder sends: transcripts and the `.meta.json` sidecars Claude Code writes beside
 * subagent files (importTexts reads them to link and describe the subagents, as the CLI
 * does on disk); no hidden files (.DS_Store) or other extensions.
 */
function isTranscriptPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return !name.startsWith('.') && /\.(jsonl|json|traj)$/i.test(name);
}

/** From an `<input type=file>` (with or without `webkitdirectory`). */
export function pickedFromInput(files: FileList | null, fromFolder: boolean): PickedFile[] {
  const out = [...(files ?? [])].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
  // A folder brings everything in it; single picks are taken as chosen.
  return fromFolder ? out.filter((p) => isTranscriptPath(p.path)) : out;
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function walk(entry: FileSystemEntry, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, path: entry.fullPath.replace(/^\//, '') });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches (100 in Chromium) until it returns an empty one.
  for (let batch = await readEntries(reader); batch.length > 0; batch = await readEntries(reader)) {
    for (const child of batch) await walk(child, out);
  }
}

/**
 * From a drop: folders are walked (DataTransfer items as entries, relative paths kept).
 * The entries must be taken synchronously inside the drop handler, before any await: the
 * DataTransfer is emptied once the event returns. Returns null when nothing was a folder,
 * so the caller can use the plain file list.
 */
export function entriesOfDrop(data: DataTransfer | null): FileSystemEntry[] | null {
  if (!data || !data.items) return null;
  const entries = [...data.items].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry() : null)).filter((e): e is FileSystemEntry => e !== null);
  return entries.some((e) => e.isDirectory) ? entries : null;
}

export async function pickedFromEntries(entries: readonly FileSystemEntry[]): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  for (const e of entries) await walk(e, out);
  return out.filter((p) => isTranscriptPath(p.path) || !p.path.includes('/'));
}
