// allreduce_sum (the all-reduce of ranks sharing a device) against the CPU: the sum over W ranks
// in rank order, float32 additions exactly as the kernel makes them (bit for bit), for one rank,
// two and three, a bucket shorter than a workgroup and one spanning several.
import { grid1d } from '../../gpu/op.ts';
import { expectClose } from './close.ts';
import { randn, runOp } from './run-op.ts';
import type { OpCase } from './case.ts';

export const reduceCases = {
  allreduce_sum: (
    [
      [1, 5],
      [2, 37],
      [3, 300],
    ] as const
  ).map(([world, count]): OpCase => ({
    name: `${world} ranks x ${count} floats, summed in rank order`,
    async run(gpu) {
      const gathered = randn(world * count, 95 + world);
      const { out } = await runOp(gpu, 'allreduce_sum', { count, world }, { gathered, out: count }, (o) =>
        grid1d(count, o.WG ?? 64),
      );
      const want = Float32Array.from({ length: count }, (_, i) => {
        let v = gathered[i] ?? 0;
        for (let r = 1; r < world; r++) v = Math.fround(v + (gathered[r * count + i] ?? 0));
        return v;
      });
      expectClose('out', out!, want, { rtol: 0, atol: 0 });
    },
  })),
} satisfies Record<string, OpCase[]>;
