// The real-GPU variants of the conv2d kernels against src/reference/conv2d.ts: the workgroup-memory
// tiled forward and input gradient, on shapes whose channels, rows and columns all end in a partial
// tile (tiles of the default size, small ones, an odd row count, and the tiles the real-GPU tuning
// gives conv2, made to fit 256 invocations), and the subgroup-shuffle reduce of the weight gradient's split-K slices, which runs
// only where the device has the `subgroups` feature with one subgroup size (SwiftShader has: 4).
import type { Gpu } from '../../gpu/device.ts';
import { cdiv } from '../../gpu/op.ts';
import { conv2dBackwardInput, conv2dForward, type Conv2dShape } from '../../reference/conv2d.ts';
import { fitTiles } from './fit-tiles.ts';
import { expectClose } from './close.ts';
import { arena, at, randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

type Tiles = Readonly<Record<string, number>>;
const label = (s: Conv2dShape, t: Tiles) =>
  `x=[${s.n},${s.ci},${s.h},${s.w}] w=[${s.co},${s.ci},3,3] tiles ${Object.keys(t).length === 0 ? "of the device's tuning" : JSON.stringify(t)}`;

const ODD: readonly (readonly [Conv2dShape, Tiles])[] = [
  [
    { n: 2, ci: 3, co: 5, h: 7, w: 9 },
    { TCO: 8, TCI: 2, ROWS: 2, TW: 4 },
  ],
  [{ n: 1, ci: 6, co: 8, h: 5, w: 4 }, {}],
  [
    { n: 3, ci: 1, co: 2, h: 1, w: 3 },
    { TCO: 8, TCI: 8, ROWS: 2, TW: 4 },
  ],
  [
    { n: 1, ci: 9, co: 17, h: 6, w: 10 },
    { TCO: 16, TCI: 4, ROWS: 3, TW: 8 },
  ],
];
const CONV2: Conv2dShape = { n: 1, ci: 32, co: 64, h: 16, w: 16 };

function forwardCase(s: Conv2dShape, tiles: Tiles, relu: boolean, seed: number): OpCase {
  return {
    name: `${label(s, tiles)} relu=${relu}`,
    async run(gpu) {
      const x = randn(s.n * s.ci * s.h * s.w, 41 + seed);
      const w = randn(s.co * s.ci * 9, 42 + seed, 0.5);
      const b = randn(s.co, 43 + seed, 0.5);
      const { data, offsets } = arena(5, w, b);
      const out = await runOp(
        gpu,
        'conv2d_forward_tiled',
        { ...s, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: relu ? 1 : 0 },
        { x, theta: data, y: s.n * s.co * s.h * s.w },
        (o) => [cdiv(s.h, at(o, 'ROWS')) * cdiv(s.w, at(o, 'TW')), cdiv(s.co, at(o, 'TCO')), s.n],
        tiles,
      );
      expectClose('y', out.y!, conv2dForward(x, w, b, s, relu), KERNEL_TOL);
    },
  };
}

function inputCase(s: Conv2dShape, tiles: Tiles, seed: number): OpCase {
  return {
    name: label(s, tiles),
    async run(gpu) {
      const dy = randn(s.n * s.co * s.h * s.w, 51 + seed);
      const w = randn(s.co * s.ci * 9, 52 + seed, 0.5);
      const { data, offsets } = arena(3, w);
      const out = await runOp(
        gpu,
        'conv2d_backward_input_tiled',
        { ...s, w_off: offsets[0] ?? 0 },
        { dy, theta: data, dx: s.n * s.ci * s.h * s.w },
        (o) => [cdiv(s.h, at(o, 'ROWS')) * cdiv(s.w, at(o, 'TW')), cdiv(s.ci, at(o, 'TCI')), s.n],
        tiles,
      );
      expectClose('dx', out.dx!, conv2dBackwardInput(dy, w, s), KERNEL_TOL);
    },
  };
}

// The forward's tiles swapped: TCI output (input) channels per workgroup, TCO summed at a time.
const swap = (t: Tiles): Tiles =>
  t.TCO === undefined ? t : { TCI: t.TCO, TCO: t.TCI ?? 8, ROWS: t.ROWS ?? 4, TW: t.TW ?? 16 };

/**
 * Sums `splits` slices of [co, k+1] as the weight gradient's second pass does, on the subgroup
 * kernel, for each of `ranks` ranks (rank r's slices after rank r-1's, its sums one arena on).
 */
async function subgroupReduce(gpu: Gpu, splits: number, co: number, k: number, outs: number, ranks: number) {
  const partial = randn(ranks * splits * co * (k + 1), 61 + splits);
  const wOff = 3;
  const bOff = wOff + co * k + 2;
  const arena = bOff + co + 4;
  const before = randn(ranks * arena, 62 + splits);
  const { grad } = await runOp(
    gpu,
    'conv2d_backward_weight_reduce_subgroup',
    { co, k, splits, w_off: wOff, b_off: bOff, rank_grad: ranks > 1 ? arena : 0 },
    { partial, grad: before },
    [cdiv(co * (k + 1), outs), ranks, 1],
    { OUTS: outs, SG: gpu.subgroupSize },
  );
  const want = Float64Array.from(before);
  for (let r = 0; r < ranks; r++) {
    for (let sl = 0; sl < splits; sl++) {
      for (let c = 0; c < co; c++) {
        for (let j = 0; j <= k; j++) {
          const at = r * arena + (j < k ? wOff + c * k + j : bOff + c);
          want[at] = (want[at] ?? 0) + (partial[((r * splits + sl) * co + c) * (k + 1) + j] ?? 0);
        }
      }
    }
  }
  expectClose('grad', grad!, Float32Array.from(want), KERNEL_TOL);
}

export const convTiledCases = {
  conv2d_forward_tiled: [
    ...ODD.flatMap(([s, t], k) => [forwardCase(s, t, false, k), forwardCase(s, t, true, k)]),
    forwardCase(CONV2, fitTiles('conv2d_forward_tiled', 256), true, 9),
  ],
  conv2d_backward_input_tiled: [
    ...ODD.map(([s, t], k) => inputCase(s, swap(t), k)),
    inputCase(CONV2, fitTiles('conv2d_backward_input_tiled', 256), 9),
  ],
  // Every slice count against the lanes: fewer slices than lanes, not a multiple, many; outputs
  // that end in a partial workgroup; one output per workgroup (all lanes on one sum); ranks
  // sharing a device.
  conv2d_backward_weight_reduce_subgroup: (
    [
      [1, 3, 5, 1, 1],
      [7, 5, 9, 2, 1],
      [37, 3, 27, 1, 1],
      [300, 2, 27, 4, 1],
      [7, 5, 9, 2, 3],
    ] as const
  ).map(([splits, co, k, outs, ranks]): OpCase => ({
    name: `sums ${splits} slices of [co=${co}, k=${k}+1]${ranks > 1 ? ` for each of ${ranks} ranks` : ''}, OUTS ${outs}, lanes = the subgroup size / OUTS`,
    requires: 'subgroups',
    run: (gpu) => subgroupReduce(gpu, splits, co, k, outs, ranks),
  })),
} satisfies Record<string, OpCase[]>;
