// Data-layer errors about hostile or unusual input: a path that is not a regular file (a FIFO
// would block the import forever), and a tar archive that asks the decoder to buffer too much
// metadata (pax / GNU long-name headers) before its next entry.
import type { FileKind } from '../input/path-node.ts';
import { DataError, TarError } from './errors.ts';

/** What a non-regular filesystem object is, in words. */
export type { FileKind };

/** The import source (or a CIFAR file in a source directory) is not what it must be (no FIFO, device...). */
export class NotRegularFileError extends DataError {
  constructor(
    readonly path: string,
    readonly kind: FileKind,
    expected = 'a regular file',
  ) {
    super('NOT_REGULAR_FILE', `${path} is a ${kind}, not ${expected}; refusing to read it`);
    this.name = 'NotRegularFileError';
  }
}

/** More tar metadata or padding than any real archive has, before the next entry. */
export class TarMetadataTooLargeError extends TarError {
  constructor(
    source: string,
    readonly limit: number,
    where: string,
  ) {
    super(
      'TAR_METADATA_TOO_LARGE',
      source,
      `${source}: the tar archive is damaged or hostile: more than ${limit} bytes of tar headers (pax or GNU long-name records) or padding ${where}; refusing to buffer them`,
    );
    this.name = 'TarMetadataTooLargeError';
  }
}
