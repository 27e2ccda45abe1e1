// Throughput baselines: `webddp check --save-baseline FILE` writes the images/s of this run's bench
// rows; `--baseline FILE` compares a later run with it and fails every row slower than the
// baseline by more than --max-slowdown (default 10%), every baseline row the run did not measure,
// and a baseline recorded on another adapter (a comparison across machines means nothing).
import type { AdapterSummary } from '../gpu/device.ts';
import type { CheckRow } from './result.ts';
import { readJson } from '../input/json.ts';

export interface Baseline {
  readonly webddp: string;
  readonly created: string;
  readonly adapter: Pick<AdapterSummary, 'vendor' | 'architecture' | 'description' | 'device'>;
  /** Bench row name -> images/s. */
  readonly imagesPerSec: Readonly<Record<string, number>>;
}

export const DEFAULT_MAX_SLOWDOWN = 0.1;

export function makeBaseline(version: string, adapter: AdapterSummary, rows: readonly CheckRow[]): Baseline {
  const imagesPerSec: Record<string, number> = {};
  for (const r of rows) if (r.group === 'bench' && r.imagesPerSec !== undefined) imagesPerSec[r.name] = r.imagesPerSec;
  const { vendor, architecture, description, device } = adapter;
  return {
    webddp: version,
    created: new Date().toISOString(),
    adapter: { vendor, architecture, description, device },
    imagesPerSec,
  };
}

/** A baseline from JSON text, checked field by field; `source` names the file in errors. */
export function parseBaseline(text: string, source: string): Baseline {
  const v = readJson(text, (issue) => new Error(`${source}: not JSON (${issue})`));
  const obj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!obj(v)) throw new Error(`${source}: a baseline is a JSON object`);
  if (!obj(v.adapter)) throw new Error(`${source}: 'adapter' must be an object`);
  if (!obj(v.imagesPerSec)) throw new Error(`${source}: 'imagesPerSec' must be an object of {name: images/s}`);
  const ips: Record<string, number> = {};
  for (const [k, n] of Object.entries(v.imagesPerSec)) {
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
      throw new Error(`${source}: imagesPerSec['${k}'] must be a positive number (got ${JSON.stringify(n)})`);
    ips[k] = n;
  }
  if (Object.keys(ips).length === 0) throw new Error(`${source}: the baseline holds no throughput to compare with`);
  const a = v.adapter;
  const s = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    webddp: s(v.webddp),
    created: s(v.created),
    adapter: {
      vendor: s(a.vendor),
      architecture: s(a.architecture),
      description: s(a.description),
      device: s(a.device),
    },
    imagesPerSec: ips,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The bench rows judged against the baseline, plus rows for what it holds that was not measured. */
export function compareWithBaseline(
  rows: readonly CheckRow[],
  base: Baseline,
  adapter: AdapterSummary,
  maxSlowdown: number,
): CheckRow[] {
  const out: CheckRow[] = [];
  const same =
    base.adapter.vendor === adapter.vendor &&
    base.adapter.architecture === adapter.architecture &&
    base.adapter.description === adapter.description;
  if (!same) {
    const name = (a: Baseline['adapter']) => `${a.description || a.device || a.architecture} (${a.vendor})`;
    out.push({
      group: 'bench',
      name: 'baseline adapter',
      status: 'fail',
      ms: 0,
      detail: `the baseline was recorded on ${name(base.adapter)}, this run is on ${name(adapter)}`,
    });
  }
  const measured = new Set<string>();
  for (const r of rows) {
    if (r.group !== 'bench' || r.imagesPerSec === undefined) {
      out.push(r);
      continue;
    }
    measured.add(r.name);
    const want = base.imagesPerSec[r.name];
    if (want === undefined) {
      out.push({ ...r, detail: `${r.detail}; not in the baseline` });
      continue;
    }
    const change = r.imagesPerSec / want - 1;
    const slow = change < -maxSlowdown;
    out.push({
      ...r,
      status: slow || r.status === 'fail' ? 'fail' : r.status,
      detail: `${r.detail}; baseline ${want.toFixed(1)} images/s (${change >= 0 ? '+' : ''}${pct(change)}, limit -${pct(maxSlowdown)})`,
    });
  }
  for (const [name, want] of Object.entries(base.imagesPerSec))
    if (!measured.has(name))
      out.push({
        group: 'bench',
        name,
        status: 'fail',
        ms: 0,
        detail: `in the baseline (${want.toFixed(1)} images/s) but not measured by this run`,
      });
  return out;
}
