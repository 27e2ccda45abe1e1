// Gradient clipping by the global norm when each rank holds only its partition of the reduced
// gradients (ZeRO-1/2/3): the squared norms are summed over the ranks, then every rank scales
// its partition by torch.nn.utils.clip_grad_norm_'s coefficient.
import { clipCoefficient } from '../../numeric/clip-coefficient.ts';
import type { ModeContext } from '../mode.ts';

/** Scales `g` (this rank's partition) in place when the run clips; every rank must call it. */
export async function clipPartition(ctx: ModeContext, g: Float32Array): Promise<void> {
  const { pg, config } = ctx;
  if (!(config.clipGradNorm > 0)) return;
  let sq = 0;
  for (const v of g) sq += v * v;
  const [total = 0] = await ctx.comm(() => pg.allReduceScalars([sq]), 'all-reduce norm');
  const coef = Math.fround(clipCoefficient(Math.sqrt(total), config.clipGradNorm));
  for (let i = 0; i < g.length; i++) g[i] = (g[i] ?? 0) * coef;
}
