// The error every checkpoint reader throws: the file (or directory) and what is wrong with it.

/** A checkpoint that cannot be used: names the file and what is wrong with it. */
export class CheckpointError extends Error {
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`${source}: ${detail}`);
    this.name = 'CheckpointError';
  }
}
