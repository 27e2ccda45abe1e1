// A staged failure written as RANK:STEP:KIND (e.g. "1:3:throw"): the CLI's --inject-fault and the
// teaching page's ?fault= use it to show what happens when a worker dies mid-run.
import type { Gpu } from '../gpu/device.ts';
import { FAULT_KINDS, type Fault } from './protocol.ts';

export type RankFault = Fault & { readonly rank: number };

/** Parses RANK:STEP:KIND; the message says what is wrong (the caller names the flag or field). */
export function parseFaultSpec(
  text: string,
  workers: number,
): { ok: true; fault: RankFault } | { ok: false; message: string } {
  const [rank, step, kind, ...rest] = text.split(':');
  const k = FAULT_KINDS.find((x) => x === kind);
  const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : NaN);
  const r = int(rank);
  const st = int(step);
  if (rest.length > 0 || !k || !Number.isSafeInteger(r) || !Number.isSafeInteger(st)) {
    return {
      ok: false,
      message: `must be RANK:STEP:KIND with whole numbers RANK and STEP and KIND one of ${FAULT_KINDS.join(', ')} (got '${text}')`,
    };
  }
  if (r >= workers)
    return { ok: false, message: `rank ${r} does not exist (there are ${workers} workers: 0 to ${workers - 1})` };
  return { ok: true, fault: { rank: r, step: st, kind: k } };
}

/** Makes this rank fail as `fault` says (tests and demonstrations of failure handling). */
export async function stageFault(
  fault: Fault,
  rank: number,
  step: number,
  gpu: Gpu,
  exit: (code: number) => void,
  skipBucket: () => void,
): Promise<void> {
  switch (fault.kind) {
    case 'throw':
      throw new Error(`injected fault: rank ${rank} throws at step ${step}`);
    case 'exit':
      // A worker thread ending with GPU promises pending aborts the whole process in Dawn
      // (gpu/pending.ts): this rank's device goes first, as a dying process's would.
      await gpu.dispose();
      exit(3);
      return new Promise(() => undefined);
    case 'hang':
      return new Promise(() => undefined);
    case 'skip-bucket':
      skipBucket();
      return;
    case 'device-lost':
      gpu.device.destroy();
      await gpu.device.lost;
      return;
  }
}
