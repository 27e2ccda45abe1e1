// The data of `webddp train --resume-from` (src/cli/train-resume.ts resumeData), without a GPU, on
// real directory stores and CIFAR-format directories: without --data the recorded dataset comes
// from the store (and the log says so); one absent from the store is an error naming the --data to
// give; another version under the recorded name, or other --data, is refused naming both; a
// checkpoint that records no dataset gets one warning line and trains on --data.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetMismatchError, storedDataset, type DatasetRecord } from '../../src/checkpoint/dataset-record.ts';
import { prepareData } from '../../src/cli/train-data.ts';
import { resumeData } from '../../src/cli/train-resume.ts';
import { UsageError } from '../../src/cli/command.ts';
import { makeFiles } from '../helpers/cifar-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'webddp-resume-data-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A directory of CIFAR-format .bin files (5 x 4 train records, 3 test) from `seed`. */
function cifarDir(name: string, seed: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, bytes] of makeFiles(4, 3, seed)) writeFileSync(join(dir, file), bytes);
  return dir;
}

function captureIo() {
  const lines: string[] = [];
  return { lines, io: { out: (t: string) => void lines.push(t), err: (t: string) => void lines.push(t) } };
}

const first = cifarDir('cifar-a', 1);
const other = cifarDir('cifar-b', 2);
const store = join(root, 'store');
const quiet = captureIo().io;
const recorded: DatasetRecord = storedDataset((await prepareData(first, store, quiet, true)).manifest);
const ck = join(root, 'ck', 'step-3');

describe('resume data (webddp train --resume-from)', () => {
  it('without --data takes the recorded dataset from the store and says so', async () => {
    const { lines, io } = captureIo();
    const p = await resumeData(ck, recorded, undefined, store, io, false);
    expect(p.fromCheckpoint).toBe(true);
    expect(p.data).toEqual({ kind: 'file', dir: store, dataset: 'cifar10' });
    expect(storedDataset(p.manifest)).toEqual(recorded);
    expect(lines).toEqual([
      `data: the checkpoint's dataset 'cifar10' (20 train, 3 test records, content ${recorded.kind === 'stored' ? recorded.content.slice(0, 16) : ''}...), from ${store} (no --data given)\n`,
    ]);
  });

  it('a recorded dataset absent from the store: an error naming the --data to give', async () => {
    const empty = join(root, 'empty-store');
    const run = resumeData(ck, recorded, undefined, empty, quiet, true);
    await expect(run).rejects.toThrow(UsageError);
    await expect(resumeData(ck, recorded, undefined, empty, quiet, true)).rejects.toThrow(
      `${ck} was trained on dataset 'cifar10' (20 train, 3 test records, content `,
    );
    await expect(resumeData(ck, recorded, undefined, empty, quiet, true)).rejects.toThrow(
      `which is not in the store ${empty}: give --data with the directory it was imported from (${first})`,
    );
  });

  it('other data, given or stored under the recorded name, is refused naming both', async () => {
    const given = resumeData(ck, recorded, other, join(root, 'store-b'), quiet, true);
    await expect(given).rejects.toThrow(DatasetMismatchError);
    await expect(resumeData(ck, recorded, other, join(root, 'store-b'), quiet, true)).rejects.toThrow(
      /was trained on dataset 'cifar10' \(20 train, 3 test records, content [0-9a-f]{16}\.\.\.\); this run's data is dataset 'cifar10' \(20 train, 3 test records, content [0-9a-f]{16}\.\.\.\)\. An exact resume continues on the data the checkpoint was trained on: give --data with the directory it was imported from/,
    );
    // store-b now holds the other version under the recorded name: without --data it is refused too
    await expect(resumeData(ck, recorded, undefined, join(root, 'store-b'), quiet, true)).rejects.toThrow(
      `the store ${join(root, 'store-b')} holds another version of 'cifar10'`,
    );
  });

  it('a checkpoint that records no dataset: one warning line, and --data is used', async () => {
    const { lines, io } = captureIo();
    const p = await resumeData(ck, null, first, store, io, true);
    expect(p.fromCheckpoint).toBe(false);
    expect(storedDataset(p.manifest)).toEqual(recorded);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^warning: ${ck} records no dataset \\(written before checkpoints recorded it\\): cannot check that dataset 'cifar10' .* is the data it was trained on\\n$`,
      ),
    );
  });
});
