// allreduce_sum (the all-reduce of ranks sharing a device) against the CPU: the sum over W ranks
// in rank order, float32 products and additions exactly as the kernel makes them (bit for bit), for
// one rank, two and three, a bucket shorter than a workgroup and one spanning several, with the
// ranks' gradients already divided (scale 1) and divided here (scale 1/W).
import { grid1d } from '../../gpu/op.ts';
import { expectClose } from './close.ts';
import { randn, runOp } from './run-op.ts';
import type { OpCase } from './case.ts';

export const reduceCases = {
  allreduce_sum: (
    [
      [1, 5, 1],
      [2, 37, 1],
      [3, 300, 1],
      [2, 37, 1 / 2],
      [3, 300, 1 / 3],
    ] as const
  ).map(([world, count, s]): OpCase => ({
    name: `${world} ranks x ${count} floats, ${s === 1 ? 'summed' : `each times 1/${world}, summed`} in rank order`,
    async run(gpu) {
      const gathered = randn(world * count, 95 + world);
      const scale = Math.fround(s);
      const { out } = await runOp(gpu, 'allreduce_sum', { count, world, scale }, { gathered, out: count }, (o) =>
        grid1d(count, o.WG ?? 64),
      );
      const want = Float32Array.from({ length: count }, (_, i) => {
        let v = Math.fround((gathered[i] ?? 0) * scale);
        for (let r = 1; r < world; r++) v = Math.fround(v + Math.fround((gathered[r * count + i] ?? 0) * scale));
        return v;
      });
      expectClose('out', out!, want, { rtol: 0, atol: 0 });
    },
  })),
} satisfies Record<string, OpCase[]>;
