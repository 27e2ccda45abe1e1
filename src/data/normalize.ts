// CIFAR-10 normalisation constants (the values the DDP tutorial's torchvision transforms use) and a CPU
// reference of ToTensor + Normalize in float32. The GPU normalises on upload; this is the oracle.
import { IMAGE_BYTES } from './cifar.ts';

/** Per-channel mean (R, G, B) of CIFAR-10 training images, on the 0..1 scale. */
export const CIFAR10_MEAN: readonly [number, number, number] = [0.4914, 0.4822, 0.4465];
/** Per-channel standard deviation (R, G, B), as in the DDP tutorial's transforms.Normalize. */
export const CIFAR10_STD: readonly [number, number, number] = [0.2023, 0.1994, 0.201];

const PLANE = IMAGE_BYTES / 3;

/**
 * (b / 255 - mean[c]) / std[c] for NCHW bytes, every step rounded to float32 exactly as PyTorch's
 * ToTensor (float division by 255) then Normalize (sub_, div_ with float32 mean/std) compute it.
 * (Double results of one operation on float32 inputs round to the correct float32, so fround
 * after each step reproduces float32 arithmetic.)
 */
export function normalize(bytes: Uint8Array, out: Float32Array = new Float32Array(bytes.byteLength)): Float32Array {
  if (bytes.byteLength % IMAGE_BYTES !== 0)
    throw new RangeError(`normalize: ${bytes.byteLength} bytes is not a whole number of ${IMAGE_BYTES}-byte images`);
  if (out.length < bytes.byteLength)
    throw new RangeError(`normalize: output holds ${out.length} values, need ${bytes.byteLength}`);
  const f = Math.fround;
  const tables = [0, 1, 2].map((c) => {
    const mean = f(CIFAR10_MEAN[c] ?? 0);
    const std = f(CIFAR10_STD[c] ?? 1);
    const t = new Float32Array(256);
    for (let b = 0; b < 256; b++) t[b] = f(f(f(b / 255) - mean) / std);
    return t;
  });
  for (let i = 0; i < bytes.byteLength; i++) {
    const c = Math.floor(i / PLANE) % 3;
    out[i] = tables[c]?.[bytes[i] ?? 0] ?? 0;
  }
  return out;
}
