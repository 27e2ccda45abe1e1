// What the dataset panel does with picked, dropped or linked CIFAR-10 sources: decide which
// importer to call, call it, and turn its results and errors into sentences for the page.
import { CIFAR_ARCHIVE, CIFAR_LOOSE, sizeProblem } from './file-checks.ts';
import { DataError, ImportAbortedError, NetworkError, describe } from '../../data/errors.ts';
import { importArchive, importFiles, importFromUrl } from '../../data/import.ts';
import { DEFAULT_DATASET, type ImportProgress, type ImportResult } from '../../data/import-types.ts';
import type { DatasetManifest, DatasetStore } from '../../data/store.ts';
import { t } from '../i18n/index.ts';

/** One import the user asked for. */
export type ImportRequest =
  | { readonly kind: 'archive'; readonly file: File }
  | { readonly kind: 'files'; readonly files: readonly File[] }
  | { readonly kind: 'url'; readonly url: string };

const ARCHIVE_NAME = /\.(tar\.gz|tgz|tar|gz)$/i;
const LOOSE_NAME = /\.(bin|txt)$/i;

/** 50000 -> "50 000" (narrow no-break space between thousands). */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US').replace(/,/g, '\u202f');
}

/** "50 000 training and 10 000 test records". */
export function recordCounts(m: DatasetManifest): string {
  return t().dataset.counts(count(m.splits.train.records), count(m.splits.test.records));
}

/**
 * How to import picked or dropped files: one archive, or loose .bin files (+ batches.meta.txt).
 * A string is a message for the user instead.
 */
export function planFiles(files: readonly File[]): ImportRequest | string {
  const first = files[0];
  if (first === undefined) return t().dataset.noFiles;
  const archive = files.find((f) => ARCHIVE_NAME.test(f.name));
  if (archive !== undefined && files.length > 1) {
    return t().dataset.bothKinds(files.length, archive.name);
  }
  // A single file that is not a loose CIFAR file goes to the archive importer, which reads it as a
  // stream and says what it is; its size is checked first, as every loose file's is.
  if (files.length === 1 && (archive !== undefined || !LOOSE_NAME.test(first.name))) {
    return sizeProblem(first, CIFAR_ARCHIVE) ?? { kind: 'archive', file: first };
  }
  for (const f of files) {
    const problem = sizeProblem(f, CIFAR_LOOSE);
    if (problem !== null) return problem;
  }
  return { kind: 'files', files };
}

/** What the user typed as a URL, checked: a string is a message for the user. */
export function planUrl(text: string): ImportRequest | string {
  if (text.trim() === '') return t().dataset.noUrl;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return t().dataset.notUrl(text.trim());
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return t().dataset.badProtocol(url.protocol);
  return { kind: 'url', url: url.href };
}

/** A short name of the request's source, for messages. */
export function sourceLabel(req: ImportRequest): string {
  switch (req.kind) {
    case 'archive':
      return req.file.name;
    case 'url':
      return req.url;
    case 'files':
      return req.files.length === 1
        ? (req.files[0]?.name ?? t().dataset.oneFile)
        : t().dataset.nFiles(req.files.length);
  }
}

export interface RunOptions {
  readonly onProgress: (p: ImportProgress) => void;
  readonly signal: AbortSignal;
}

/** Runs the importer that fits the request, into dataset 'cifar10'. */
export function startImport(req: ImportRequest, store: DatasetStore, o: RunOptions): Promise<ImportResult> {
  const common = { name: DEFAULT_DATASET, onProgress: o.onProgress, signal: o.signal };
  switch (req.kind) {
    case 'archive':
      return importArchive(req.file.stream(), store, {
        ...common,
        totalBytes: req.file.size,
        sourceName: req.file.name,
      });
    case 'files':
      return importFiles(req.files, store, common);
    case 'url':
      return importFromUrl(req.url, store, common);
  }
}

/** Sentences about a finished import. */
export function resultMessages(r: ImportResult, source: string): string[] {
  const out = [
    r.unchanged
      ? t().dataset.unchanged(recordCounts(r.manifest), source)
      : t().dataset.imported(recordCounts(r.manifest), source),
  ];
  // The real archive holds a readme.html next to the batches: not worth a word.
  const ignored = r.ignored.filter((f) => !/(^|\/)readme\.html$/i.test(f));
  if (ignored.length > 0) out.push(t().dataset.ignored(ignored.join(', ')));
  for (const w of r.warnings) out.push(w);
  if (r.persisted === false) out.push(t().dataset.notPersisted);
  return out;
}

/** True when the error is the user's cancel (or a failure caused by it). */
export function isCancel(e: unknown, signal: AbortSignal): boolean {
  return e instanceof ImportAbortedError || signal.aborted;
}

/** Sentences for a failed import; the importer guarantees the stored dataset is untouched. */
export function errorMessages(e: unknown, req: ImportRequest): string[] {
  // A DataError's message already says what was wrong and where (and quotes its cause where useful).
  const out = [e instanceof DataError ? e.message : t().dataset.failed(describe(e))];
  if (e instanceof NetworkError && e.bytesRead === 0 && req.kind === 'url' && isCrossOrigin(req.url)) {
    out.push(t().dataset.cors);
  }
  out.push(t().dataset.untouched);
  return out;
}

function isCrossOrigin(url: string): boolean {
  try {
    return new URL(url).origin !== location.origin;
  } catch {
    return false;
  }
}
