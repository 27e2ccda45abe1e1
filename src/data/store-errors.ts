// The dataset stores' errors (IndexedDB, directory): a corrupt or missing chunk or manifest, an
// unknown dataset, the quota, any other storage failure. Each names the dataset, split and chunk
// where it applies; an import that throws one leaves the previously stored dataset unchanged.
import { DataError, describe } from './errors.ts';

/** A stored chunk whose bytes no longer match the manifest's SHA-256 (or that is missing). */
export class ChecksumMismatchError extends DataError {
  constructor(
    readonly dataset: string,
    readonly split: string,
    readonly chunk: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      'CHECKSUM_MISMATCH',
      actual === 'missing'
        ? `dataset '${dataset}': ${split} chunk ${chunk} (sha256 ${expected.slice(0, 16)}...) is missing from storage; import the dataset again`
        : `dataset '${dataset}': ${split} chunk ${chunk} is corrupt: sha256 ${actual.slice(0, 16)}... but the manifest says ${expected.slice(0, 16)}...; import the dataset again`,
    );
    this.name = 'ChecksumMismatchError';
  }
}

/** A stored manifest that is malformed or does not match its own version id. */
export class ManifestError extends DataError {
  constructor(
    readonly dataset: string,
    detail: string,
  ) {
    super('BAD_MANIFEST', `dataset '${dataset}': stored manifest is invalid: ${detail}`);
    this.name = 'ManifestError';
  }
}

/** No dataset of that name is stored. */
export class DatasetNotFoundError extends DataError {
  constructor(
    readonly dataset: string,
    readonly where: string,
  ) {
    super(
      'NOT_FOUND',
      `no dataset '${dataset}' in ${where}; import CIFAR-10 or create the built-in synthetic dataset first`,
    );
    this.name = 'DatasetNotFoundError';
  }
}

/** The storage quota ran out while writing; says how much was needed and what the browser reports. */
export class StorageQuotaError extends DataError {
  constructor(
    readonly neededBytes: number,
    readonly usage: number | undefined,
    readonly quota: number | undefined,
    readonly what: string,
    cause?: unknown,
  ) {
    // A refused write (with its cause) while estimate() reports room: Chromium's reported quota is
    // usage plus a fixed amount, not the limit it enforces, so do not call that free.
    const est =
      usage === undefined || quota === undefined
        ? ''
        : cause !== undefined && quota - usage >= neededBytes
          ? `; the browser refused the write: its real limit for this site, set by the disk's size and free space, is lower than the ${mb(quota)} quota navigator.storage.estimate() reports (${mb(usage)} used)`
          : `; navigator.storage.estimate() reports ${mb(usage)} used of a ${mb(quota)} quota (${mb(Math.max(0, quota - usage))} free)`;
    super(
      'QUOTA_EXCEEDED',
      `storage quota exceeded ${what}: about ${mb(neededBytes)} more is needed${est}. Free disk space or delete other site data, then import again`,
      { cause },
    );
    this.name = 'StorageQuotaError';
  }
}

/** Any other storage failure (IndexedDB aborted, filesystem error). */
export class StoreError extends DataError {
  constructor(
    readonly where: string,
    what: string,
    cause: unknown,
  ) {
    super('STORE', `${where}: ${what} failed: ${describe(cause)}`, { cause });
    this.name = 'StoreError';
  }
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
