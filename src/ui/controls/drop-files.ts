// Files from a drag and drop: the dropped files themselves, or, when a folder is dropped (say the
// extracted cifar-10-batches-bin), the files inside it (a few levels deep); and the drop zone's
// event handling.
const MAX_DEPTH = 3;

/**
 * Makes `zone` a drop target for files: highlighted (class "over") while files are dragged over it
 * and `enabled()`, and `onFiles` with the dropped files (folders expanded).
 */
export function wireDropZone(
  zone: HTMLElement,
  enabled: () => boolean,
  onFiles: (files: File[]) => void,
  onError: (e: unknown) => void,
): void {
  const accepts = (e: DragEvent) => enabled() && (e.dataTransfer?.types.includes('Files') ?? false);
  zone.addEventListener('dragenter', (e) => {
    if (!accepts(e)) return;
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault(); // otherwise the browser opens the file instead
    if (e.dataTransfer) e.dataTransfer.dropEffect = accepts(e) ? 'copy' : 'none';
  });
  zone.addEventListener('dragleave', (e) => {
    if (!(e.relatedTarget instanceof Node && zone.contains(e.relatedTarget))) zone.classList.remove('over');
  });
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (!accepts(e) || !e.dataTransfer) return;
    droppedFiles(e.dataTransfer).then(onFiles, onError);
  });
}

/**
 * The files of a drop. Must be called from the drop handler itself: the entries of a
 * DataTransfer can only be taken synchronously, during the event.
 */
export function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const plain = [...dt.files];
  const entries: FileSystemEntry[] = [];
  for (const item of dt.items) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry === null) return Promise.resolve(plain);
    entries.push(entry);
  }
  if (!entries.some((e) => e.isDirectory)) return Promise.resolve(plain);
  return collectAll(entries);
}

async function collectAll(entries: readonly FileSystemEntry[]): Promise<File[]> {
  const out: File[] = [];
  for (const e of entries) await collect(e, out, 0);
  return out;
}

function isFile(e: FileSystemEntry): e is FileSystemFileEntry {
  return e.isFile;
}

function isDirectory(e: FileSystemEntry): e is FileSystemDirectoryEntry {
  return e.isDirectory;
}

async function collect(entry: FileSystemEntry, out: File[], depth: number): Promise<void> {
  if (isFile(entry)) {
    out.push(await new Promise<File>((resolve, reject) => entry.file(resolve, reject)));
  } else if (isDirectory(entry) && depth < MAX_DEPTH) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await collect(child, out, depth + 1);
    }
  }
}
