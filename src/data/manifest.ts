// Manifest logic shared by writer and reader: the content version id, validation of a manifest
// read back from storage (it is input like any file), and locating a record's chunk.
import { RECORD_BYTES } from './cifar.ts';
import { ManifestError } from './store-errors.ts';
import { sha256Hex } from './hash.ts';
import { SPLITS, type ChunkInfo, type DatasetManifest, type Split, type SplitInfo } from './store.ts';

/** Dataset names become keys and file names: letters, digits, '-' and '_', at most 64. */
export const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A manifest without its version and time. */
export type ManifestDraft = Omit<DatasetManifest, 'version' | 'created'>;

/** The version id: SHA-256 of the canonical JSON of the content fields (not source, not time). */
export async function computeVersion(m: ManifestDraft | DatasetManifest): Promise<string> {
  const split = (s: SplitInfo) => ({
    records: s.records,
    files: [...s.files],
    chunks: s.chunks.map((c) => [c.sha256, c.records, c.bytes, c.file]),
  });
  const canonical = JSON.stringify({
    format: m.format,
    name: m.name,
    recordBytes: m.recordBytes,
    classes: [...m.classes],
    train: split(m.splits.train),
    test: split(m.splits.test),
  });
  return sha256Hex(new TextEncoder().encode(canonical));
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHex = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

function parseChunk(v: unknown, where: string, name: string): ChunkInfo {
  if (!isObj(v) || !isHex(v.sha256) || !isCount(v.records) || !isCount(v.bytes) || typeof v.file !== 'string') {
    throw new ManifestError(name, `${where} is not {sha256, records, bytes, file}`);
  }
  if (v.records === 0 || v.bytes !== v.records * RECORD_BYTES)
    throw new ManifestError(name, `${where}: ${v.bytes} bytes for ${v.records} records`);
  return { sha256: v.sha256, records: v.records, bytes: v.bytes, file: v.file };
}

function parseSplit(v: unknown, split: Split, name: string): SplitInfo {
  if (!isObj(v) || !isCount(v.records) || !Array.isArray(v.chunks) || !Array.isArray(v.files)) {
    throw new ManifestError(name, `splits.${split} is not {records, files, chunks}`);
  }
  const chunks = v.chunks.map((c, i) => parseChunk(c, `splits.${split}.chunks[${i}]`, name));
  const sum = chunks.reduce((a, c) => a + c.records, 0);
  if (sum !== v.records)
    throw new ManifestError(name, `splits.${split} says ${v.records} records but its chunks hold ${sum}`);
  const files = v.files.map((f) => {
    if (typeof f !== 'string') throw new ManifestError(name, `splits.${split}.files holds a non-string`);
    return f;
  });
  return { records: v.records, files, chunks };
}

/** Validates a stored manifest (shape, counts, and that its version id matches its content). */
export async function parseManifest(raw: unknown, name: string): Promise<DatasetManifest> {
  if (!isObj(raw)) throw new ManifestError(name, 'not an object');
  if (raw.format !== 1) throw new ManifestError(name, `unknown format ${String(raw.format)}`);
  if (raw.name !== name) throw new ManifestError(name, `names dataset '${String(raw.name)}'`);
  if (raw.recordBytes !== RECORD_BYTES)
    throw new ManifestError(name, `record size ${String(raw.recordBytes)}, expected ${RECORD_BYTES}`);
  if (typeof raw.version !== 'string' || typeof raw.created !== 'string')
    throw new ManifestError(name, 'version or created missing');
  if (!Array.isArray(raw.classes) || !raw.classes.every((c) => typeof c === 'string'))
    throw new ManifestError(name, 'classes is not a list of names');
  const src = raw.source;
  if (
    !isObj(src) ||
    typeof src.kind !== 'string' ||
    typeof src.description !== 'string' ||
    !Array.isArray(src.ignored)
  ) {
    throw new ManifestError(name, 'source is not {kind, description, ignored}');
  }
  if (!isObj(raw.splits)) throw new ManifestError(name, 'splits missing');
  const rawSplits = raw.splits;
  const [train, test] = SPLITS.map((s) => parseSplit(rawSplits[s], s, name)) as [SplitInfo, SplitInfo];
  const m: DatasetManifest = {
    format: 1,
    name,
    version: raw.version,
    created: raw.created,
    source: {
      kind: src.kind as DatasetManifest['source']['kind'],
      description: src.description,
      ignored: src.ignored.map(String),
    },
    recordBytes: RECORD_BYTES,
    classes: raw.classes,
    splits: { train, test },
  };
  const expected = await computeVersion(m);
  if (expected !== m.version)
    throw new ManifestError(
      name,
      `version ${m.version.slice(0, 16)}... does not match its content (${expected.slice(0, 16)}...)`,
    );
  return m;
}

/** Maps split record indices to (chunk, record within chunk) by binary search over prefix sums. */
export class ChunkIndex {
  /** starts[i] = first record of chunk i; starts[n] = total. */
  readonly starts: Float64Array;

  constructor(readonly info: SplitInfo) {
    this.starts = new Float64Array(info.chunks.length + 1);
    info.chunks.forEach((c, i) => {
      this.starts[i + 1] = (this.starts[i] ?? 0) + c.records;
    });
  }

  get records(): number {
    return this.info.records;
  }

  /** The chunk holding record `index` (0 <= index < records). */
  chunkOf(index: number): number {
    let lo = 0;
    let hi = this.info.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
