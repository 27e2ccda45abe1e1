// The base of the data layer's errors (DataError: a stable `code` and a message naming what and
// where) and describe(), a short text for any thrown value. errors.ts re-exports both.

/** Base class of all data-layer errors. */
export class DataError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DataError';
  }
}

/** A short text for any thrown value. */
export function describe(e: unknown): string {
  if (e instanceof Error) {
    const inner = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${e.message}${inner}`;
  }
  return String(e);
}
