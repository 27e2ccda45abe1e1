// Chunk reads shared by the ranks of one worker that share a device: every epoch each of them loads
// its shard from the same chunks (a DistributedSampler shard touches nearly every chunk), so W ranks
// would read and SHA-256-verify the split W times. While their loads overlap, a chunk is read and
// verified once and its bytes handed to every load that asks (loadShard only reads them); when the
// last load ends the bytes are dropped, so nothing stays in memory between epochs.
export class SharedChunkReads {
  private readonly reads = new Map<string, Promise<Uint8Array>>();
  private active = 0;
  /** Chunk reads that went to the store (the others were shared). */
  storeReads = 0;

  /** Runs one shard load; its chunk reads are shared with the loads running at the same time. */
  async during<T>(load: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await load();
    } finally {
      if (--this.active === 0) this.reads.clear();
    }
  }

  /** The bytes of chunk `key` (a content address): read once while loads overlap; a failed read is not kept. */
  read(key: string, readChunk: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const known = this.reads.get(key);
    if (known) return known;
    this.storeReads++;
    const p = readChunk();
    if (this.active === 0) return p;
    this.reads.set(key, p);
    p.catch(() => {
      if (this.reads.get(key) === p) this.reads.delete(key);
    });
    return p;
  }
}
