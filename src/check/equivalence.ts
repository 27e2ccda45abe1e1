// The equivalence check: every parallel mode, trained for k steps on W ranks at batch B/W per rank,
// must end where one worker ends after k steps at batch B, from the same initial parameters and the
// same sample order; and gradient accumulation (2 micro-batches of B/2) where one batch of B ends.
// Why the sample sets agree: DistributedSampler deals the epoch's global order round-robin
// (rank r gets positions r, r+W, ...), so step i's batches on the W ranks together are exactly
// positions [iB, (i+1)B) of the order, the one worker's batch i (DataParallel's device 0 draws the
// same union). Each mode takes the mean loss over those B samples (DDP and ZeRO average the ranks'
// batch means of equal batches; DataParallel and BalancedDataParallel compute the loss over the
// gathered outputs of the whole batch, so BalancedDataParallel's uneven split is equivalent too;
// accumulation scales each micro-batch's mean by 1/2). What differs is only the order of float32
// additions: the tolerance (equivalenceTolerance) is the bound on that, derived in
// docs/equivalence.md. SGD with momentum: its update is linear in the gradient, so a rounding
// difference in a gradient is not amplified as Adam's division by sqrt(v) would amplify it near 0.
import type { TrainConfig } from '../config.ts';
import { generateSynthetic } from '../data/synthetic.ts';
import { initSimpleCnn } from '../nn/init.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { parseConfig } from '../parallel/index.ts';
import { Coordinator, type SpawnWorker } from '../runtime/coordinator.ts';
import type { DataSpec } from '../runtime/protocol.ts';
import { split } from './learn.ts';
import { timed, type CheckRow } from './result.ts';

export interface EquivalenceSize {
  /** Ranks of the parallel runs. */
  readonly world: number;
  /** The global batch B (one worker's batch; B/W per rank). */
  readonly batch: number;
  /** Optimizer steps k (one epoch of k * B samples). */
  readonly steps: number;
  /** BalancedDataParallel's samples on device 0 (fewer than the others get). */
  readonly gpu0Bsz: number;
}

/** --quick: 2 ranks of 4 (BalancedDP 2 + 6), 2 steps; the full check: 4 ranks of 2 (1 + 3 + 2 + 2), 3 steps. */
export const EQUIVALENCE_QUICK: EquivalenceSize = { world: 2, batch: 8, steps: 2, gpu0Bsz: 2 };
export const EQUIVALENCE_FULL: EquivalenceSize = { world: 4, batch: 8, steps: 3, gpu0Bsz: 1 };

/** The model (width 1/8: 4 and 8 channels) and the optimizer every run shares. */
const WIDTH = 0.125;
const BASE = { epochs: 1, optimizer: 'sgd', lr: 0.05, momentum: 0.9, width: WIDTH, seed: 3, checkEvery: 0 } as const;

/** float32's unit roundoff, 2^-24. */
const UNIT_ROUNDOFF = 2 ** -24;

/**
 * The largest relative difference max|θ_W − θ_1| / max|θ_1 − θ_0| two summation orders can make
 * after k SGD steps: k · n · u, with n the most float32 terms any gradient element sums in one step
 * (conv1's weight gradient: B samples x 32 x 32 output positions, then the ring's W partial sums)
 * and u = 2^-24. Two orders of one sum of n terms differ by at most about n·u·Σ|terms| (Higham's
 * γ_n bound); momentum's update is linear in the gradient and carries a step's difference into
 * later steps with weights 1 + μ + ... , which k bounds once the differences are summed over k
 * steps of similar size. Derivation and what it does not cover: docs/equivalence.md.
 */
function equivalenceTolerance(size: EquivalenceSize): number {
  const n = size.batch * 32 * 32 + size.world;
  return size.steps * n * UNIT_ROUNDOFF;
}

interface Case {
  readonly name: string;
  readonly config: Partial<Record<keyof TrainConfig, unknown>>;
  /** What the case expects, stated in the row. */
  readonly relation: string;
}

function cases(s: EquivalenceSize): Case[] {
  const W = s.world;
  const per = s.batch / W;
  const equal = `equal to 1 worker at batch ${s.batch}`;
  const parallel = (mode: string, extra: Case['config'] = {}) => ({ mode, workers: W, batchSize: per, ...extra });
  const balanced = [s.gpu0Bsz, ...Array.from({ length: W - 1 }, () => 0)];
  const rest = s.batch - s.gpu0Bsz;
  for (let r = 1; r < W; r++) balanced[r] = Math.floor(rest / (W - 1)) + (r - 1 < rest % (W - 1) ? 1 : 0);
  return [
    { name: `ddp, ${W} ranks x ${per}`, config: parallel('ddp'), relation: equal },
    { name: `zero1, ${W} ranks x ${per}`, config: parallel('zero1'), relation: equal },
    { name: `zero2, ${W} ranks x ${per}`, config: parallel('zero2'), relation: equal },
    { name: `zero3, ${W} ranks x ${per}`, config: parallel('zero3'), relation: equal },
    { name: `dp, ${W} devices, chunks of ${per}`, config: parallel('dp'), relation: equal },
    {
      name: `balanced-dp, ${W} devices, chunks ${balanced.join(' + ')}`,
      config: parallel('balanced-dp', { gpu0Bsz: s.gpu0Bsz }),
      relation: `${equal} (the loss is taken over the gathered outputs of the whole batch, so the uneven split weights every sample 1/${s.batch} as one worker does)`,
    },
    {
      name: `ddp, 1 worker, 2 micro-batches of ${s.batch / 2}`,
      config: { mode: 'ddp', workers: 1, batchSize: s.batch / 2, gradAccum: 2 },
      relation: `${equal} (each micro-batch's mean loss scaled by 1/2)`,
    },
  ];
}

async function train(
  spawn: SpawnWorker,
  config: TrainConfig,
  data: DataSpec,
  init: Float32Array,
): Promise<Float32Array> {
  const c = await Coordinator.start({ config, data, spawn, initialParams: init.slice() });
  try {
    for await (const e of c.run()) {
      if (e.type === 'done' && e.stopped) throw new Error('the run stopped before its last step');
    }
    const [params] = await c.readParams();
    if (!params) throw new Error('rank 0 returned no parameters');
    return params;
  } finally {
    await c.close();
  }
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`parameter counts differ: ${a.length} and ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return m;
}

/** The data and initial parameters every run of a size shares (seeded: the same in Node and a browser). */
function inputs(s: EquivalenceSize): { spec: DataSpec; init: Float32Array } {
  const data = split(generateSynthetic({ seed: 5, train: s.steps * s.batch, test: 0 }).train);
  return { spec: { kind: 'tensors', x: data.x, y: data.y }, init: initSimpleCnn(simpleCnnSpec(WIDTH), BASE.seed) };
}

/** DDP on `size.world` ranks against one worker at the whole batch: what the page's DDP lesson shows live. */
export interface DdpComparison {
  readonly size: EquivalenceSize;
  /** The one-worker run's largest parameter change from the initial parameters. */
  readonly moved: number;
  /** max |θ_W − θ_1|. */
  readonly diff: number;
  /** diff / moved, compared with the tolerance. */
  readonly relative: number;
  readonly tolerance: number;
  readonly equal: boolean;
}

/** The check's DDP case alone (the same runs, data, init and tolerance), for the page. */
export async function compareDdp(spawn: SpawnWorker, s: EquivalenceSize): Promise<DdpComparison> {
  const { spec, init } = inputs(s);
  const tolerance = equivalenceTolerance(s);
  const reference = await train(
    spawn,
    parseConfig({ ...BASE, mode: 'ddp', workers: 1, batchSize: s.batch }),
    spec,
    init,
  );
  const moved = maxAbsDiff(reference, init);
  if (!(moved > 0)) throw new Error('the one-worker run did not move the parameters: nothing to compare');
  const [ddp] = cases(s);
  if (!ddp) throw new Error('the equivalence cases have no DDP case');
  const params = await train(spawn, parseConfig({ ...BASE, ...ddp.config }), spec, init);
  const diff = maxAbsDiff(params, reference);
  const relative = diff / moved;
  return { size: s, moved, diff, relative, tolerance, equal: relative <= tolerance };
}

/**
 * One row per case: the largest parameter difference to the one-worker run, relative to the
 * one-worker run's largest parameter change, against equivalenceTolerance. The one-worker run
 * itself is a row (it is what every case compares with).
 */
export async function checkEquivalence(spawn: SpawnWorker, s: EquivalenceSize): Promise<CheckRow[]> {
  const tol = equivalenceTolerance(s);
  const { spec, init } = inputs(s);
  let reference: Float32Array | null = null;
  let moved = 0;
  const rows: CheckRow[] = [];
  rows.push(
    await timed('equivalence', `reference: 1 worker at batch ${s.batch}, ${s.steps} SGD steps`, async () => {
      reference = await train(spawn, parseConfig({ ...BASE, mode: 'ddp', workers: 1, batchSize: s.batch }), spec, init);
      moved = maxAbsDiff(reference, init);
      if (!(moved > 0)) return { status: 'fail', detail: 'the parameters did not move: nothing to compare' };
      return `largest parameter change ${moved.toExponential(3)}; every case below must end within ${tol.toExponential(2)} of it (relative)`;
    }),
  );
  for (const k of cases(s)) {
    rows.push(
      await timed('equivalence', `${k.name}, ${s.steps} steps`, async () => {
        if (!reference) return { status: 'skip', detail: 'the one-worker reference run failed' };
        const params = await train(spawn, parseConfig({ ...BASE, ...k.config }), spec, init);
        const d = maxAbsDiff(params, reference);
        const rel = d / moved;
        const detail = `expected ${k.relation}: max |Δθ| ${d.toExponential(3)} = ${rel.toExponential(3)} of the largest change (tolerance ${tol.toExponential(2)})`;
        return { status: rel <= tol ? 'pass' : 'fail', detail };
      }),
    );
  }
  return rows;
}
