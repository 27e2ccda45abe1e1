// The k-th step of every rank sharing a device, met in one place: each rank joins with what it
// brings, and once all `world` ranks have joined their k-th step the last one's call runs `all`
// over the arrivals (in rank order); every rank's join settles with its outcome. Ranks on one
// thread join concurrently (async); nothing blocks.

interface Arrival<T> {
  readonly rank: number;
  readonly item: T;
  readonly done: () => void;
  readonly failed: (e: Error) => void;
}

export class RankJoin<T> {
  /** The k-th step of each rank, waiting for the other ranks' k-th. */
  private readonly waiting = new Map<number, Arrival<T>[]>();
  private readonly calls: number[];

  constructor(
    readonly world: number,
    private readonly all: (items: readonly T[]) => Promise<void>,
  ) {
    this.calls = Array.from({ length: world }, () => 0);
  }

  /** Joins rank `rank`'s next step: settles once `all` has run over every rank's item. */
  join(rank: number, item: T): Promise<void> {
    const k = this.calls[rank] ?? 0;
    this.calls[rank] = k + 1;
    return new Promise<void>((done, failed) => {
      const list = this.waiting.get(k) ?? [];
      list.push({ rank, item, done, failed });
      this.waiting.set(k, list);
      if (list.length < this.world) return;
      this.waiting.delete(k);
      const ranks = [...list].sort((a, b) => a.rank - b.rank);
      this.all(ranks.map((a) => a.item)).then(
        () => list.forEach((a) => a.done()),
        (e: unknown) => list.forEach((a) => a.failed(e instanceof Error ? e : new Error(String(e)))),
      );
    });
  }

  /** Fails every join still waiting (the ranks are being disposed). */
  abort(why: string): void {
    for (const list of this.waiting.values()) for (const a of list) a.failed(new Error(why));
    this.waiting.clear();
  }
}
