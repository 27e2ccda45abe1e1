// Harness results cross puppeteer's evaluate boundary as plain JSON: errors become {name, code, message}.

export interface HarnessError {
  readonly name: string;
  readonly code: string | undefined;
  readonly message: string;
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: HarnessError };

/** Runs `fn`, catching any error as a plain object. */
export async function outcome<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    const code = (err as { code?: unknown }).code;
    return {
      ok: false,
      error: { name: err.name, code: typeof code === 'string' ? code : undefined, message: err.message },
    };
  }
}

/** Lower-case hex SHA-256 of several byte arrays in sequence. */
export async function sha256Of(parts: readonly Uint8Array[]): Promise<string> {
  const total = parts.reduce((a, p) => a + p.byteLength, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
  return [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
}
