// Cuts one CIFAR .bin byte stream into chunks of whole records, whatever sizes the stream's pieces
// have: validates every label (errors name the file, record and byte offset) and the total length,
// and hands each full chunk to a sink. Holds at most one chunk in memory.
import { RECORD_BYTES, checkLabels } from './cifar.ts';
import { EmptyFileError, RecordLengthError } from './errors.ts';

/** Receives a chunk of `records` whole records; the buffer is not reused afterwards. */
export type ChunkSink = (bytes: Uint8Array, records: number) => Promise<void>;

/** Default records per stored chunk: 5000 x 3073 bytes = 14.7 MiB, two chunks per CIFAR file. */
export const DEFAULT_RECORDS_PER_CHUNK = 5000;

export class RecordChunker {
  private buf: Uint8Array;
  private fill = 0;
  /** Records already handed to the sink. */
  private done = 0;

  constructor(
    private readonly file: string,
    private readonly recordsPerChunk: number,
    private readonly sink: ChunkSink,
  ) {
    if (!Number.isSafeInteger(recordsPerChunk) || recordsPerChunk < 1)
      throw new RangeError(`recordsPerChunk must be a positive integer (got ${recordsPerChunk})`);
    this.buf = new Uint8Array(recordsPerChunk * RECORD_BYTES);
  }

  /** Bytes received so far. */
  get bytes(): number {
    return this.done * RECORD_BYTES + this.fill;
  }

  /** Appends the next piece of the file. */
  async push(piece: Uint8Array): Promise<void> {
    let at = 0;
    while (at < piece.byteLength) {
      const n = Math.min(this.buf.byteLength - this.fill, piece.byteLength - at);
      this.buf.set(piece.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === this.buf.byteLength) await this.flush();
    }
  }

  /** Ends the file: checks it is non-empty and whole records, flushes the last chunk, returns the record count. */
  async finish(): Promise<number> {
    if (this.bytes === 0) throw new EmptyFileError(this.file);
    if (this.fill % RECORD_BYTES !== 0) throw new RecordLengthError(this.file, this.bytes);
    if (this.fill > 0) await this.flush();
    return this.done;
  }

  private async flush(): Promise<void> {
    const records = this.fill / RECORD_BYTES;
    const chunk = this.fill === this.buf.byteLength ? this.buf : this.buf.slice(0, this.fill);
    checkLabels(chunk, this.file, this.done);
    this.buf = new Uint8Array(this.recordsPerChunk * RECORD_BYTES);
    this.fill = 0;
    await this.sink(chunk, records);
    this.done += records;
  }
}
