// What a file input accepts, checked from the File's name and size before a byte of it is read: a
// 163 MB archive picked by mistake as a DeepSpeed config is refused at once instead of read whole
// into the tab. Each rule says what the file should be, its extensions and its largest size.
import { MAX_WIDTH, simpleCnnSpec } from '../../nn/spec.ts';
import { t } from '../i18n/index.ts';

export interface FileRule {
  readonly kind: 'deepspeed' | 'stateDict' | 'archive' | 'loose';
  /** Lower-case name endings that are accepted ('.json'). */
  readonly extensions: readonly string[];
  readonly maxBytes: number;
}

const MiB = 2 ** 20;

/** A ds_config.json (DeepSpeed's are a few kB; comments allowed). */
export const DEEPSPEED_CONFIG: FileRule = { kind: 'deepspeed', extensions: ['.json', '.jsonc'], maxBytes: MiB };

/** A safetensors state_dict of SimpleCNN: at most the widest model's float32 parameters and a header. */
export const STATE_DICT: FileRule = {
  kind: 'stateDict',
  extensions: ['.safetensors'],
  maxBytes: simpleCnnSpec(MAX_WIDTH).total * 4 + MiB,
};

/** cifar-10-binary.tar.gz (163 MB), read as a stream. */
export const CIFAR_ARCHIVE: FileRule = {
  kind: 'archive',
  extensions: ['.tar.gz', '.tgz', '.tar', '.gz'],
  maxBytes: 1024 * MiB,
};

/** One of the archive's files: data_batch_N.bin, test_batch.bin (30,730,000 bytes each), batches.meta.txt. */
export const CIFAR_LOOSE: FileRule = { kind: 'loose', extensions: ['.bin', '.txt'], maxBytes: 32 * MiB };

/** "163.0 MB", "1.5 kB": sizes as a file manager shows them. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const [unit, div] = bytes < 1e6 ? ['kB', 1e3] : bytes < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  return `${(bytes / div).toFixed(1)} ${unit}`;
}

/** Why `file` is not what `rule` accepts (a sentence for the user), or null when it may be read. */
export function fileProblem(file: Pick<File, 'name' | 'size'>, rule: FileRule): string | null {
  const w = t().files;
  const name = file.name.toLowerCase();
  if (!rule.extensions.some((e) => name.endsWith(e)))
    return w.wrongType(file.name, w.kinds[rule.kind], rule.extensions.join(', '));
  return sizeProblem(file, rule);
}

/** Why `file` is too large for `rule`, or null (for files whose type the reader itself judges). */
export function sizeProblem(file: Pick<File, 'name' | 'size'>, rule: FileRule): string | null {
  const w = t().files;
  if (file.size <= rule.maxBytes) return null;
  return w.tooLarge(file.name, formatSize(file.size), w.kinds[rule.kind], formatSize(rule.maxBytes));
}
