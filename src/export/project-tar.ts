// A torchrun project as one tar archive under a top folder (what the page downloads: a browser
// saves one file, not a tree). modern-tar (already the dataset reader's tar library) packs it.
import { packTar } from 'modern-tar';
import type { TorchrunProject } from './torchrun.ts';

/** The project's files under `root/`, in a POSIX tar; `tar xf` gives the tree the CLI writes. */
export async function projectTar(project: TorchrunProject, root: string): Promise<Uint8Array<ArrayBuffer>> {
  const dirs = new Set<string>([root]);
  for (const name of Object.keys(project.files)) {
    const parts = name.split('/').slice(0, -1);
    parts.forEach((_, i) => dirs.add(`${root}/${parts.slice(0, i + 1).join('/')}`));
  }
  const mtime = new Date();
  return packTar([
    ...[...dirs]
      .sort()
      .map((d) => ({ header: { name: `${d}/`, type: 'directory' as const, size: 0, mode: 0o755, mtime } })),
    ...Object.entries(project.files).map(([name, body]) => ({
      header: { name: `${root}/${name}`, type: 'file' as const, size: body.byteLength, mode: 0o644, mtime },
      body,
    })),
  ]);
}
