// Waiting for a shared Int32 to change, without hanging the event loop where that can be avoided.
// Atomics.waitAsync (Chromium, Node >= 16, Safari >= 16.4) returns a promise, so other tasks
// (port messages, timers, a second collective) keep running while a rank waits. Where it is
// missing, a worker may block with Atomics.wait; it does so in short slices and yields a
// macrotask between slices, so poison messages and timers still get through. Browser main
// threads cannot block at all: ranks must run in workers there.

/** 'auto': waitAsync when the engine has it, else blocking slices; 'async' / 'block' force one. */
export type WaitMode = 'auto' | 'async' | 'block';

type WaitAsyncResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
type WaitAsyncFn = (ta: Int32Array, index: number, value: number, timeout?: number) => WaitAsyncResult;

const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsyncFn }).waitAsync;

/** Longest single blocking Atomics.wait before yielding to the event loop, ms. */
export const BLOCK_SLICE_MS = 2;

/** Whether this engine has Atomics.waitAsync. */
export function hasWaitAsync(): boolean {
  return typeof waitAsync === 'function';
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Resolves true as soon as `i32[index] !== value` (or a notify arrives), false after `timeoutMs`.
 * Spurious wake-ups are possible: callers re-check their condition.
 */
export async function waitWhileEqual(i32: Int32Array, index: number, value: number, timeoutMs: number, mode: WaitMode): Promise<boolean> {
  if (Atomics.load(i32, index) !== value) return true;
  const useAsync = mode === 'async' || (mode === 'auto' && waitAsync !== undefined);
  if (useAsync) {
    if (waitAsync === undefined) throw new Error('Atomics.waitAsync is not available in this engine');
    const r = waitAsync(i32, index, value, Math.max(0, timeoutMs));
    if (!r.async) return r.value !== 'timed-out';
    return (await r.value) !== 'timed-out';
  }
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return false;
    if (Atomics.wait(i32, index, value, Math.min(remaining, BLOCK_SLICE_MS)) !== 'timed-out') return true;
    await macrotask();
    if (Atomics.load(i32, index) !== value) return true;
  }
}
