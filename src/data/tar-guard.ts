// Bounds the bytes a tar decoder may hold without handing anything out. modern-tar reads a pax or
// GNU long-name header whole before the entry it describes (up to 8 MiB each) and keeps global pax
// records for the rest of the archive, so a tar of ignored entries with 8 MB path headers made the
// import use gigabytes. Without parsing the tar a second time, this counts the decompressed bytes
// fed to the decoder against what it gave back: 512 bytes of header per entry, the entry's body
// bytes and their padding to 512. The rest (metadata records, end-of-archive blocks, trailing
// padding, bytes in flight) may not exceed the limit.
import { TarMetadataTooLargeError } from './errors.ts';

/** Overhead allowed over a whole archive: a real CIFAR-10 tar has about 10 KiB. */
const DEFAULT_TAR_OVERHEAD_LIMIT = 4 * 2 ** 20;

export class TarOverheadGuard {
  private fed = 0;
  private accounted = 0;
  private entries = 0;
  private body = 0;
  private last = '';

  constructor(
    private readonly source: string,
    private readonly limit = DEFAULT_TAR_OVERHEAD_LIMIT,
  ) {}

  /** Decompressed bytes about to go into the decoder; throws past the limit. */
  feed(bytes: number): void {
    this.fed += bytes;
    if (this.fed - this.accounted - this.body > this.limit) {
      const where = this.entries === 0 ? 'before the first entry' : `after entry ${this.entries} ('${this.last}')`;
      throw new TarMetadataTooLargeError(this.source, this.limit, where);
    }
  }

  /** The decoder produced an entry: its header block counts, and its body as it is read. */
  entry(name: string): void {
    this.endBody();
    this.entries++;
    this.last = name.length > 200 ? `${name.slice(0, 200)}...` : name;
    this.accounted += 512;
  }

  /** Body bytes the decoder handed out. */
  bodyBytes(n: number): void {
    this.body += n;
  }

  private endBody(): void {
    this.accounted += this.body + (-this.body & 511);
    this.body = 0;
  }
}
