// The page's file inputs judge a file by its name and size before reading a byte of it
// (src/ui/controls/file-checks.ts): a CIFAR-10 archive picked as a DeepSpeed config, a huge or
// wrongly named state_dict and an oversized dataset file are refused with a sentence naming the
// file, what it should be and the limit; the right files pass. The File stand-ins throw if read.
import { afterEach, describe, expect, it } from 'vitest';
import { planFiles } from '../../src/ui/controls/dataset-import.ts';
import {
  CIFAR_ARCHIVE,
  DEEPSPEED_CONFIG,
  fileProblem,
  formatSize,
  STATE_DICT,
} from '../../src/ui/controls/file-checks.ts';
import { setLang } from '../../src/ui/i18n/index.ts';
import { MAX_WIDTH, simpleCnnSpec } from '../../src/nn/spec.ts';

/** A File that may only be looked at: reading it fails the test. */
function unread(name: string, size: number): File {
  const fail = () => {
    throw new Error(`${name} was read`);
  };
  return { name, size, type: '', text: fail, arrayBuffer: fail, stream: fail, slice: fail } as unknown as File;
}

afterEach(() => setLang('en'));

describe('file inputs check name and size first', () => {
  it('the DeepSpeed panel refuses a 163 MB archive by its name, without reading it', () => {
    expect(fileProblem(unread('cifar-10-binary.tar.gz', 162_978_931), DEEPSPEED_CONFIG)).toBe(
      'cifar-10-binary.tar.gz is not a DeepSpeed config (expected .json, .jsonc). Nothing was read.',
    );
  });

  it('a .json larger than 1 MiB is refused by its size; a ds_config.json passes', () => {
    expect(fileProblem(unread('big.json', 163_000_000), DEEPSPEED_CONFIG)).toBe(
      'big.json is 163.0 MB: too large for a DeepSpeed config (at most 1.0 MB). Nothing was read.',
    );
    expect(fileProblem(unread('ds_config.json', 1_234), DEEPSPEED_CONFIG)).toBeNull();
    expect(fileProblem(unread('DS_CONFIG.JSON', 10), DEEPSPEED_CONFIG)).toBeNull();
  });

  it("a state_dict may be as large as the widest SimpleCNN's float32 parameters, and must be .safetensors", () => {
    const widest = simpleCnnSpec(MAX_WIDTH).total * 4;
    expect(fileProblem(unread('model.safetensors', widest + 4096), STATE_DICT)).toBeNull();
    expect(fileProblem(unread('model.safetensors', STATE_DICT.maxBytes + 1), STATE_DICT)).toMatch(
      /^model\.safetensors is .*: too large for a model state_dict \(at most .*\)\. Nothing was read\.$/,
    );
    expect(fileProblem(unread('model.pt', 1000), STATE_DICT)).toBe(
      'model.pt is not a model state_dict (expected .safetensors). Nothing was read.',
    );
  });

  it('the dataset panel refuses an archive over 1 GiB and a loose file over 32 MiB, and plans the rest', () => {
    expect(planFiles([unread('huge.tar.gz', CIFAR_ARCHIVE.maxBytes + 1)])).toMatch(
      /^huge\.tar\.gz is 1\.1 GB: too large for a CIFAR-10 archive/,
    );
    expect(planFiles([unread('data_batch_1.bin', 30_730_000), unread('data_batch_2.bin', 300_000_000)])).toMatch(
      /^data_batch_2\.bin is 300\.0 MB: too large for a CIFAR-10 batch file \(at most 33\.6 MB\)/,
    );
    const archive = unread('cifar-10-binary.tar.gz', 162_978_931);
    expect(planFiles([archive])).toEqual({ kind: 'archive', file: archive });
    const loose = [unread('data_batch_1.bin', 30_730_000), unread('readme.html', 88)];
    expect(planFiles(loose)).toEqual({ kind: 'files', files: loose });
  });

  it('says it in Chinese on the Chinese page', () => {
    setLang('zh');
    expect(fileProblem(unread('cifar-10-binary.tar.gz', 162_978_931), DEEPSPEED_CONFIG)).toBe(
      'cifar-10-binary.tar.gz 不是 DeepSpeed 配置文件（应为 .json, .jsonc）。没有读取任何内容。',
    );
  });

  it('formats sizes as a file manager does', () => {
    expect([999, 1_500, 162_978_931, 2_000_000_000].map(formatSize)).toEqual(['999 B', '1.5 kB', '163.0 MB', '2.0 GB']);
  });
});
