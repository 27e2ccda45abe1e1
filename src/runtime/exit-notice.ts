// One worker's death, told once: every callback registered before it hears the reason when it
// happens, one registered after hears it at once. Both spawners (browser, Node) use it.

export class ExitNotice {
  private readonly callbacks: ((reason: string) => void)[] = [];
  private reason: string | null = null;

  /** Records the death (the first reason wins) and tells every callback. */
  die(reason: string): void {
    if (this.reason !== null) return;
    this.reason = reason;
    for (const cb of this.callbacks) cb(reason);
  }

  onExit(cb: (reason: string) => void): void {
    if (this.reason !== null) cb(this.reason);
    else this.callbacks.push(cb);
  }

  /** The coordinator ended the worker itself: later exit events are not failures. */
  terminated(): void {
    this.reason ??= 'terminated';
  }
}
