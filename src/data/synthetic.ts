// The built-in dataset: a deterministic, CIFAR-format set of 10 learnable classes (see
// synthetic-shapes.ts), generated from a seeded CpuGenerator and stored through the same import
// and validation path as CIFAR-10 (as data_batch_1.bin, test_batch.bin and batches.meta.txt).
import { RECORD_BYTES, formatMeta } from './cifar.ts';
import { CpuGenerator, randperm } from '../random/generator.ts';
import { importFiles } from './import.ts';
import type { ByteSource, ImportOptions, ImportResult } from './import-types.ts';
import type { DatasetStore } from './store.ts';
import { SYNTHETIC_CLASSES, paintImage } from './synthetic-shapes.ts';

export { SYNTHETIC_CLASSES } from './synthetic-shapes.ts';

export interface SyntheticOptions {
  /** Generator seed (default 0): train uses it, test uses seed ^ 0x5bd1e995 (low 32 bits). */
  readonly seed?: number;
  /** Training records (default 10000). */
  readonly train?: number;
  /** Test records (default 2000; 0 stores no test split). */
  readonly test?: number;
  /** Uniform noise amplitude per channel, 0..127 (default 16). */
  readonly noise?: number;
}

const SYNTHETIC_DEFAULTS = { seed: 0, train: 10000, test: 2000, noise: 16 } as const;
/** Store name of the built-in dataset. */
export const SYNTHETIC_DATASET = 'synthetic';

/** `count` records whose labels are exactly balanced (count/10 each, +-1) in a seeded random order. */
export function generateRecords(count: number, seed: number, noise: number = SYNTHETIC_DEFAULTS.noise): Uint8Array {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`record count must be a non-negative integer (got ${count})`);
  if (!Number.isInteger(noise) || noise < 0 || noise > 127)
    throw new RangeError(`noise must be an integer in 0..127 (got ${noise})`);
  const g = new CpuGenerator(seed);
  const perm = randperm(count, g);
  const out = new Uint8Array(count * RECORD_BYTES);
  for (let i = 0; i < count; i++) {
    const label = (perm[i] ?? 0) % 10;
    out[i * RECORD_BYTES] = label;
    paintImage(label, g, noise, out, i * RECORD_BYTES + 1);
  }
  return out;
}

/** Both splits' records (CIFAR .bin format) and the class names. */
export function generateSynthetic(opts: SyntheticOptions = {}): {
  train: Uint8Array;
  test: Uint8Array;
  classes: readonly string[];
} {
  const seed = Number(BigInt.asUintN(32, BigInt(opts.seed ?? SYNTHETIC_DEFAULTS.seed)));
  const noise = opts.noise ?? SYNTHETIC_DEFAULTS.noise;
  return {
    train: generateRecords(opts.train ?? SYNTHETIC_DEFAULTS.train, seed, noise),
    test: generateRecords(opts.test ?? SYNTHETIC_DEFAULTS.test, (seed ^ 0x5bd1e995) >>> 0, noise),
    classes: SYNTHETIC_CLASSES,
  };
}

/** A ByteSource over bytes held in memory (streamed in 1 MiB pieces). */
export function bytesSource(name: string, bytes: Uint8Array): ByteSource {
  return {
    name,
    size: bytes.byteLength,
    stream: () => {
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (at >= bytes.byteLength) return ctrl.close();
          const end = Math.min(bytes.byteLength, at + 2 ** 20);
          ctrl.enqueue(bytes.slice(at, end));
          at = end;
        },
      });
    },
  };
}

/** The generated dataset as the loose files the CIFAR importer takes. */
function syntheticSources(opts: SyntheticOptions = {}): ByteSource[] {
  const { train, test, classes } = generateSynthetic(opts);
  const out = [bytesSource('data_batch_1.bin', train), bytesSource('batches.meta.txt', formatMeta(classes))];
  if (test.byteLength > 0) out.push(bytesSource('test_batch.bin', test));
  return out;
}

/** Generates the synthetic dataset and stores it as dataset 'synthetic' (re-running with the same options is a no-op). */
export async function importSynthetic(
  store: DatasetStore,
  opts: SyntheticOptions & ImportOptions = {},
): Promise<ImportResult> {
  const o = { ...SYNTHETIC_DEFAULTS, ...opts };
  const description = `synthetic shapes: seed ${o.seed}, ${o.train} train, ${o.test} test, noise ${o.noise}`;
  return importFiles(syntheticSources(o), store, {
    name: SYNTHETIC_DATASET,
    ...opts,
    source: { kind: 'synthetic', description },
  });
}
