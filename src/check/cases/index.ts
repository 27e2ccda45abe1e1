// Every kernel's cases, keyed by kernel: typed Record<KernelName, ...>, so adding a kernel without
// cases does not compile. A kernel with an fp16-activation form (half-acts.ts) runs those cases after
// its own, and a kernel the fp16 loss scaler gates (gated.ts) its run = 0 case.
import type { KernelName } from '../../gpu/kernels.ts';
import type { OpCase } from './case.ts';
import { convCases } from './conv.ts';
import { convTiledCases } from './conv-tiled.ts';
import { denseCases } from './dense.ts';
import { denseTiledCases, halfActDenseTiledCases } from './dense-tiled.ts';
import { bf16Cases } from './bf16.ts';
import { fp16Cases } from './fp16.ts';
import { gatedCases } from './gated.ts';
import { halfActCases } from './half-acts.ts';
import { halfActDenseCases } from './half-acts-dense.ts';
import { lossScalerCases } from './loss-scaler.ts';
import { matmulCases } from './matmul.ts';
import { optimCases } from './optim.ts';
import { reduceCases } from './reduce.ts';
import { sgmatCases } from './sgmat.ts';

export type { OpCase } from './case.ts';

const FP32_CASES: Readonly<Record<KernelName, readonly OpCase[]>> = {
  ...convCases,
  ...convTiledCases,
  ...denseCases,
  ...denseTiledCases,
  ...bf16Cases,
  ...fp16Cases,
  ...lossScalerCases,
  ...matmulCases,
  ...optimCases,
  ...reduceCases,
  ...sgmatCases,
};

const HALF_ACT_CASES: Partial<Record<KernelName, readonly OpCase[]>> = {
  ...halfActCases,
  ...halfActDenseCases,
  ...halfActDenseTiledCases,
};

export const KERNEL_CASES: Readonly<Record<KernelName, readonly OpCase[]>> = withMoreCases(FP32_CASES);

function withMoreCases(r: Readonly<Record<KernelName, readonly OpCase[]>>): Record<KernelName, readonly OpCase[]> {
  const out = { ...r };
  for (const k of Object.keys(r) as KernelName[])
    out[k] = [...r[k], ...(HALF_ACT_CASES[k] ?? []), ...(gatedCases[k] ?? [])];
  return out;
}
