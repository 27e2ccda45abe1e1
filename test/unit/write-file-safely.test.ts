// Output files on a full disk, for real: a 64 KiB tmpfs is mounted (the tests run as root here and
// in CI; where mount is not permitted the disk-full cases are skipped, saying so). Writing a file
// that does not fit fails with an error naming the final path and ENOSPC, leaves no temporary
// file behind and the previous file byte-identical, also through the CLI (`init --out`, which
// shares the helper with `train --save` and `parity --out`), and for a checkpoint directory
// (dir-node.ts); other failures (a directory in the way, a missing directory) are named the same way.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeSafetensors } from '../../src/checkpoint/safetensors.ts';
import { CheckpointWriteError, writeCheckpointDir } from '../../src/checkpoint/dir-node.ts';
import { main } from '../../src/cli/main.ts';
import { WriteFileError, writeFileSafely } from '../../src/checkpoint/write-file-node.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-write-'));
const disk = join(dir, 'full');
let mounted = '';

beforeAll(() => {
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk], { stdio: 'pipe' });
  } catch (e) {
    mounted = `mount -t tmpfs is not permitted here (${(e as Error).message.split('\n')[0]})`;
  }
});
afterAll(() => {
  if (!mounted) execFileSync('umount', [disk]);
  rmSync(dir, { recursive: true, force: true });
});

/** A checkpoint-like file of `floats` float32 values. */
function checkpoint(floats: number, v: number): Uint8Array {
  return serializeSafetensors({ w: { dtype: 'F32', shape: [floats], data: new Float32Array(floats).fill(v) } });
}

describe('writeFileSafely', () => {
  it('writes and replaces a file', async () => {
    const p = join(dir, 'ok.safetensors');
    await writeFileSafely(p, checkpoint(10, 1));
    await writeFileSafely(p, checkpoint(20, 2));
    expect(readFileSync(p)).toEqual(Buffer.from(checkpoint(20, 2)));
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('on a full disk: names the path and ENOSPC, leaves no temporary file, keeps the previous file', async (ctx) => {
    if (mounted) ctx.skip(mounted);
    const p = join(disk, 'model.safetensors');
    const previous = checkpoint(1000, 3); // 4 KB: fits
    await writeFileSafely(p, previous);
    const big = checkpoint(50_000, 4); // 200 KB: does not fit in 64 KiB
    const e = await writeFileSafely(p, big).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(WriteFileError);
    expect((e as WriteFileError).code).toBe('ENOSPC');
    expect((e as Error).message).toMatch(
      new RegExp(`^cannot write ${p}: ENOSPC.*\\(the disk is full\\); nothing was written there`),
    );
    expect(readdirSync(disk)).toEqual(['model.safetensors']);
    expect(readFileSync(p)).toEqual(Buffer.from(previous));
  });

  it('on a full disk with no previous file: nothing at all is left', async (ctx) => {
    if (mounted) ctx.skip(mounted);
    const p = join(disk, 'fresh.safetensors');
    await expect(writeFileSafely(p, checkpoint(50_000, 5))).rejects.toThrow(`cannot write ${p}: ENOSPC`);
    expect(readdirSync(disk)).toEqual(['model.safetensors']);
  });

  it('webddp init --out on the full disk: exit 1, the message names the file and ENOSPC, nothing left', async (ctx) => {
    if (mounted) ctx.skip(mounted);
    const p = join(disk, 'init.safetensors');
    let err = '';
    const code = await main(['init', '--seed', '0', '--out', p], { out: () => undefined, err: (t) => void (err += t) });
    expect(code).toBe(1);
    expect(err).toMatch(new RegExp(`^webddp init: error: cannot write ${p}: ENOSPC.*the disk is full`));
    expect(readdirSync(disk)).toEqual(['model.safetensors']);
  });

  it('a checkpoint directory on the full disk: named with ENOSPC, no .step-N.tmp left, the previous one kept', async (ctx) => {
    if (mounted) ctx.skip(mounted);
    const root = join(disk, 'ck');
    const files = (floats: number) => ({
      'model.safetensors': checkpoint(floats, 6),
      'optimizer.safetensors': checkpoint(4, 7),
      'trainer.json': new TextEncoder().encode('{}'),
    });
    const first = await writeCheckpointDir(root, 1, files(100), 0);
    const e = await writeCheckpointDir(root, 2, files(50_000), 0).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(CheckpointWriteError);
    expect((e as Error).message).toMatch(
      new RegExp(`^cannot write checkpoint ${join(root, 'step-2')}: .*ENOSPC.*\\(the disk is full\\)`),
    );
    expect(readdirSync(root)).toEqual(['step-1']);
    expect(readFileSync(join(first, 'model.safetensors'))).toEqual(Buffer.from(checkpoint(100, 6)));
  });

  it('a directory in the way or a missing directory: named, nothing left behind', async () => {
    const d = join(dir, 'is-a-dir');
    mkdirSync(d);
    await expect(writeFileSafely(d, checkpoint(4, 1), '--save')).rejects.toThrow(
      new RegExp(`^--save ${d}: is a directory, not a regular file; refusing to replace it`),
    );
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    const missing = join(dir, 'no', 'such', 'out.safetensors');
    await expect(writeFileSafely(missing, checkpoint(4, 1), '--save')).rejects.toThrow(
      new RegExp(`^--save ${missing}: its directory ${join(dir, 'no', 'such')} cannot be used \\(ENOENT`),
    );
  });
});
