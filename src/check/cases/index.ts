// Every kernel's cases, keyed by kernel: typed Record<KernelName, ...>, so adding a kernel without
// cases does not compile.
import type { KernelName } from '../../gpu/kernels.ts';
import type { OpCase } from './case.ts';
import { convCases } from './conv.ts';
import { convTiledCases } from './conv-tiled.ts';
import { denseCases } from './dense.ts';
import { bf16Cases } from './bf16.ts';
import { fp16Cases } from './fp16.ts';
import { optimCases } from './optim.ts';

export type { OpCase } from './case.ts';

export const KERNEL_CASES: Readonly<Record<KernelName, readonly OpCase[]>> = {
  ...convCases,
  ...convTiledCases,
  ...denseCases,
  ...bf16Cases,
  ...fp16Cases,
  ...optimCases,
};
