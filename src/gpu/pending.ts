// The GPU promises of one device still in flight (mapAsync, createComputePipelineAsync,
// getCompilationInfo). Dawn in Node aborts the whole process (exit 134, "Promise not resolved or
// rejected: mapAsync()") when a worker thread ends with one of them unsettled: a rank that fails
// while its GPU work is pending would take every rank and the coordinator with it. Each such
// promise is tracked here, and Gpu.dispose() destroys the device (which makes Dawn settle them:
// maps are rejected, pipelines finish) and waits for all of them before the worker may end.
export class PendingGpuWork {
  private readonly settled = new Set<Promise<void>>();

  /** Tracks `p` until it settles; returns it unchanged. */
  track<T>(p: Promise<T>): Promise<T> {
    const done = p.then(
      () => undefined,
      () => undefined,
    );
    this.settled.add(done);
    void done.then(() => this.settled.delete(done));
    return p;
  }

  /** Promises not settled yet. */
  get size(): number {
    return this.settled.size;
  }

  /** Resolves once every tracked promise (also those tracked meanwhile) has settled, or after `ms`: false then. */
  async drain(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), ms);
    });
    const all = (async () => {
      while (this.settled.size > 0) await Promise.all([...this.settled]);
      return true as const;
    })();
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
