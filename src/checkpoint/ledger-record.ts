// trainer.json's `ledger` section (a checkpoint written mid-epoch): the sample ledger of the epoch
// it stopped in (src/data/ledger.ts), every field checked here and nowhere else, against the
// checkpoint's own position and sampler settings, and its consumed samples recomputed from its
// segments (their count and hash must be the recorded ones).
import type { TrainConfig } from '../config.ts';
import { MAX_WORKERS } from '../config.ts';
import { verifyLedger, type LedgerSegment, type SampleLedger } from '../data/ledger.ts';
import { MAX_DATASET_LENGTH } from '../data/sampler.ts';

const KEYS = ['epoch', 'datasetSize', 'sampler', 'segments', 'consumedCount', 'consumedHash'] as const;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The ledger of trainer.json (`undefined`: none recorded, as at an epoch's end or in checkpoints
 * from before ledgers), or the first thing wrong with it, named by its path.
 */
export type { SampleLedger };

export function readLedgerJson(
  v: unknown,
  c: TrainConfig,
  position: { readonly epoch: number; readonly step: number },
): { ok: true; value: SampleLedger | undefined } | { ok: false; issue: string } {
  const bad = (issue: string) => ({ ok: false as const, issue: `ledger${issue}` });
  if (v === undefined) return { ok: true, value: undefined };
  if (!isObject(v)) return bad(' must be an object');
  const extra = Object.keys(v).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (extra.length > 0) return bad(` has unknown field(s) ${extra.join(', ')}`);
  if (v.epoch !== position.epoch)
    return bad(`.epoch ${JSON.stringify(v.epoch)} is not the checkpoint's epoch ${position.epoch}`);
  const n = v.datasetSize;
  if (!isCount(n) || n < 1 || n > MAX_DATASET_LENGTH)
    return bad(`.datasetSize must be a count from 1 to ${MAX_DATASET_LENGTH}, got ${JSON.stringify(n)}`);
  const s = v.sampler;
  if (!isObject(s) || Object.keys(s).sort().join() !== 'dropLast,seed,shuffle')
    return bad('.sampler must be { seed, shuffle, dropLast }');
  if (s.seed !== c.seed || s.shuffle !== c.shuffle || s.dropLast !== c.dropLast)
    return bad(
      `.sampler ${JSON.stringify(s)} is not the config's (seed ${c.seed}, shuffle ${c.shuffle}, dropLast ${c.dropLast})`,
    );
  if (!Array.isArray(v.segments) || v.segments.length === 0) return bad('.segments must be a non-empty array');
  const segments: LedgerSegment[] = [];
  for (const [i, g] of (v.segments as unknown[]).entries()) {
    const at = `.segments[${i}]`;
    if (!isObject(g) || Object.keys(g).sort().join() !== 'consumed,steps,world')
      return bad(`${at} must be { world, steps, consumed }`);
    if (!isCount(g.world) || g.world < 1 || g.world > MAX_WORKERS)
      return bad(`${at}.world must be from 1 to ${MAX_WORKERS}, got ${JSON.stringify(g.world)}`);
    if (!isCount(g.steps)) return bad(`${at}.steps must be a count, got ${JSON.stringify(g.steps)}`);
    if (!Array.isArray(g.consumed) || g.consumed.length !== g.world || !g.consumed.every(isCount))
      return bad(`${at}.consumed must hold one count per rank (${g.world})`);
    if (g.consumed.some((x) => x > n)) return bad(`${at}.consumed exceeds the dataset size ${n}`);
    segments.push({ world: g.world, steps: g.steps, consumed: [...g.consumed] });
  }
  const steps = segments.reduce((a, g) => a + g.steps, 0);
  if (steps !== position.step)
    return bad(`.segments run ${steps} steps but the checkpoint is at step ${position.step} of its epoch`);
  if (!isCount(v.consumedCount)) return bad(`.consumedCount must be a count, got ${JSON.stringify(v.consumedCount)}`);
  if (typeof v.consumedHash !== 'string' || !/^[0-9a-f]{16}$/.test(v.consumedHash))
    return bad('.consumedHash must be 16 hex digits');
  const value: SampleLedger = {
    epoch: position.epoch,
    datasetSize: n,
    sampler: { seed: c.seed, shuffle: c.shuffle, dropLast: c.dropLast },
    segments,
    consumedCount: v.consumedCount,
    consumedHash: v.consumedHash,
  };
  const issue = verifyLedger(value);
  return issue ? bad(`: ${issue}`) : { ok: true, value };
}
