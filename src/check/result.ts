// What `webddp check` reports: one row per check (a kernel case, a tensor against PyTorch, the
// learning check, a mode's equivalence with one worker, a throughput measurement), grouped, and the report around them (adapter, tuning,
// counts). A check that checks nothing is a failure, never a pass: a group that ran no row at all
// reports one failed row saying so.
import type { AdapterSummary } from '../gpu/device.ts';

export const CHECK_GROUPS = ['kernels', 'model', 'precision', 'ddp', 'equivalence', 'learn', 'bench'] as const;
export type CheckGroup = (typeof CHECK_GROUPS)[number];

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckRow {
  readonly group: CheckGroup;
  readonly name: string;
  readonly status: CheckStatus;
  /** Wall time of the check, in ms. */
  readonly ms: number;
  /** The error or comparison line for a failure, the reason for a skip, the measurement otherwise. */
  readonly detail: string;
  /** Throughput rows: images per second (compared with a baseline). */
  readonly imagesPerSec?: number;
}

export interface DeviceInfo {
  readonly adapter: AdapterSummary;
  readonly features: readonly string[];
}

export interface CheckReport {
  readonly version: string;
  readonly runtime: string;
  readonly device: DeviceInfo;
  /** The tuning the kernels and the model ran with (src/gpu/tuning.ts), as JSON. */
  readonly tuning: unknown;
  readonly rows: readonly CheckRow[];
  readonly ok: boolean;
  readonly counts: { readonly pass: number; readonly fail: number; readonly skip: number };
  readonly seconds: number;
}

export function countRows(rows: readonly CheckRow[]): CheckReport['counts'] {
  const n = (s: CheckStatus) => rows.filter((r) => r.status === s).length;
  return { pass: n('pass'), fail: n('fail'), skip: n('skip') };
}

/** Everything holds: no failure, and at least one check passed. */
export function reportOk(rows: readonly CheckRow[]): boolean {
  const c = countRows(rows);
  return c.fail === 0 && c.pass > 0;
}

/** Times `body` and turns its outcome into a row: a throw is a failure carrying the message. */
export async function timed(
  group: CheckGroup,
  name: string,
  body: () => Promise<Omit<CheckRow, 'group' | 'name' | 'ms'> | string>,
): Promise<CheckRow> {
  const t0 = performance.now();
  try {
    const r = await body();
    const ms = performance.now() - t0;
    return typeof r === 'string' ? { group, name, status: 'pass', ms, detail: r } : { group, name, ms, ...r };
  } catch (e) {
    const ms = performance.now() - t0;
    return { group, name, status: 'fail', ms, detail: e instanceof Error ? e.message : String(e) };
  }
}
