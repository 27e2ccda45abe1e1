// trainer.json's `dataset` section: which data the run read, so that an exact resume can refuse
// other data. A stored dataset (the CLI's directory store, the page's IndexedDB; the built-in
// synthetic set is stored too) is named by its name, record counts and its manifest's version,
// a SHA-256 over the name, classes and every chunk's SHA-256 (src/data/manifest.ts): equal content,
// equal id, found without reading the records again. In-memory tensors (the library's parity and
// check runs) are recorded as such, with their counts only. How much of it the run used is the
// config's trainLimit / testLimit. The one comparison the CLI's --resume-from and the page's
// resume both use is checkDataset.
import { DATASET_NAME } from '../data/manifest.ts';
import type { DatasetManifest, DatasetSource } from '../data/store.ts';

export type DatasetRecord =
  | {
      readonly kind: 'stored';
      readonly name: string;
      /** How it came into the store: the manifest's source (the synthetic set: its generator's seed, counts and noise). */
      readonly source: { readonly kind: DatasetSource['kind']; readonly description: string };
      readonly train: number;
      readonly test: number;
      /** The manifest's version: SHA-256 over name, classes, record size and every chunk's SHA-256. */
      readonly content: string;
    }
  | { readonly kind: 'tensors'; readonly train: number; readonly test: number };

const SOURCE_KINDS: readonly DatasetSource['kind'][] = ['archive', 'files', 'url', 'synthetic'];

/** The record of a stored dataset, from its (validated) manifest. */
export function storedDataset(m: DatasetManifest): DatasetRecord {
  return {
    kind: 'stored',
    name: m.name,
    source: { kind: m.source.kind, description: m.source.description },
    train: m.splits.train.records,
    test: m.splits.test.records,
    content: m.version,
  };
}

/** The record of in-memory tensors (labels per split). */
export function tensorsDataset(y: ArrayLike<number>, testY?: ArrayLike<number>): DatasetRecord {
  return { kind: 'tensors', train: y.length, test: testY?.length ?? 0 };
}

/** "dataset 'cifar10' (50000 train, 10000 test records, content 0123456789abcdef...)" */
export function describeDataset(r: DatasetRecord): string {
  const counts = `${r.train} train, ${r.test} test records`;
  return r.kind === 'stored'
    ? `dataset '${r.name}' (${counts}, content ${r.content.slice(0, 16)}...)`
    : `in-memory tensors (${counts}, content not recorded)`;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Reads the section: absent (a checkpoint written before webddp recorded it) is null; anything else is checked whole. */
export function readDatasetJson(j: unknown): { ok: true; value: DatasetRecord | null } | { ok: false; issue: string } {
  if (j === undefined) return { ok: true, value: null };
  const bad = (issue: string) => ({ ok: false as const, issue: `dataset: ${issue}` });
  if (!isObj(j)) return bad(`must be an object, got ${JSON.stringify(j)}`);
  for (const k of ['train', 'test'] as const)
    if (!isCount(j[k])) return bad(`${k} must be a record count, got ${JSON.stringify(j[k])}`);
  const counts = { train: j.train as number, test: j.test as number };
  const keys = (want: string[]) => {
    const extra = Object.keys(j).filter((k) => !want.includes(k));
    return extra.length > 0 ? bad(`unknown field(s) ${extra.join(', ')}`) : null;
  };
  if (j.kind === 'tensors')
    return keys(['kind', 'train', 'test']) ?? { ok: true, value: { kind: 'tensors', ...counts } };
  if (j.kind !== 'stored') return bad(`kind must be "stored" or "tensors", got ${JSON.stringify(j.kind)}`);
  const unknown = keys(['kind', 'name', 'source', 'train', 'test', 'content']);
  if (unknown) return unknown;
  if (typeof j.name !== 'string' || !DATASET_NAME.test(j.name))
    return bad(`name must be a dataset name, got ${JSON.stringify(j.name)}`);
  if (typeof j.content !== 'string' || !/^[0-9a-f]{64}$/.test(j.content))
    return bad(`content must be a SHA-256 (64 hex digits), got ${JSON.stringify(j.content)}`);
  const s = j.source;
  if (!isObj(s) || !SOURCE_KINDS.includes(s.kind as DatasetSource['kind']) || typeof s.description !== 'string')
    return bad(`source must be {kind: ${SOURCE_KINDS.join('|')}, description}, got ${JSON.stringify(s)}`);
  return {
    ok: true,
    value: {
      kind: 'stored',
      name: j.name,
      source: { kind: s.kind as DatasetSource['kind'], description: s.description },
      ...counts,
      content: j.content,
    },
  };
}

/** Resuming on data other than the checkpoint's: names both and the checkpoint. */
export class DatasetMismatchError extends Error {
  constructor(
    readonly where: string,
    readonly recorded: DatasetRecord,
    readonly given: DatasetRecord,
    hint: string,
  ) {
    super(
      `${where} was trained on ${describeDataset(recorded)}; this run's data is ${describeDataset(given)}. ` +
        `An exact resume continues on the data the checkpoint was trained on${hint ? `: ${hint}` : ''}`,
    );
    this.name = 'DatasetMismatchError';
  }
}

function sameDataset(a: DatasetRecord, b: DatasetRecord): boolean {
  if (a.kind === 'stored' && b.kind === 'stored')
    return a.name === b.name && a.train === b.train && a.test === b.test && a.content === b.content;
  return a.kind === b.kind && a.train === b.train && a.test === b.test;
}

/**
 * Checks the data a resume is given against the checkpoint's record (`where`: the checkpoint, named
 * in messages; `hint`: how to give the right data, e.g. the CLI's --data). A different dataset
 * throws DatasetMismatchError; a checkpoint without a record, or in-memory tensors (whose content
 * is not recorded), returns the one warning line to show; the same dataset returns null.
 */
export function checkDataset(
  recorded: DatasetRecord | null,
  given: DatasetRecord,
  where: string,
  hint = '',
): string | null {
  if (recorded === null)
    return (
      `${where} records no dataset (written before checkpoints recorded it): cannot check that ` +
      `${describeDataset(given)} is the data it was trained on`
    );
  if (!sameDataset(recorded, given)) throw new DatasetMismatchError(where, recorded, given, hint);
  return recorded.kind === 'tensors'
    ? `${where} was trained on ${describeDataset(recorded)}: cannot check that these are the same values`
    : null;
}
