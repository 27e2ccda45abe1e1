// The page's torchrun download: the project packed as one tar reads back (modern-tar's own
// decoder) as the same tree and bytes the CLI writes, under one top folder.
import { unpackTar } from 'modern-tar';
import { describe, expect, it } from 'vitest';
import { projectTar } from '../../src/export/project-tar.ts';

describe('projectTar', () => {
  it('packs every file under the root folder, with its folders, byte for byte', async () => {
    const files = {
      'train.py': new TextEncoder().encode('print("hi")\n'),
      'checkpoint/model.safetensors': Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256),
      'checkpoint/trainer.json': new TextEncoder().encode('{}'),
    };
    const tar = await projectTar({ files, warnings: [] }, 'webddp-torchrun');
    const entries = await unpackTar(tar);
    expect(entries.map((e) => [e.header.name, e.header.type])).toEqual([
      ['webddp-torchrun/', 'directory'],
      ['webddp-torchrun/checkpoint/', 'directory'],
      ['webddp-torchrun/train.py', 'file'],
      ['webddp-torchrun/checkpoint/model.safetensors', 'file'],
      ['webddp-torchrun/checkpoint/trainer.json', 'file'],
    ]);
    for (const [name, bytes] of Object.entries(files)) {
      const e = entries.find((x) => x.header.name === `webddp-torchrun/${name}`);
      expect(e?.data, name).toEqual(bytes);
    }
  });
});
