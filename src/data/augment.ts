// Optional training augmentation, off by default: torchvision's RandomCrop(32, padding=4) (zero
// padding) then RandomHorizontalFlip(0.5), on CHW bytes. Random numbers come from a CpuGenerator
// seeded from (seed, rank, epoch), drawn per image in batch order: randint(0, 9) for the top and
// the left offset (random() % 9, as torch draws a small randint), then rand() < 0.5 for the flip
// (24 random bits, as torch draws a float32). Same seed, rank, epoch and call order: same images.
import { IMAGE_BYTES } from './cifar.ts';
import { CpuGenerator } from '../random/generator.ts';

const SIDE = 32;
const PLANE = SIDE * SIDE;

export interface AugmentOptions {
  readonly seed: number | bigint;
  readonly rank: number;
  readonly epoch: number;
  /** Random crop with zero padding (default true). */
  readonly crop?: boolean;
  /** Random horizontal flip (default true). */
  readonly flip?: boolean;
  /** Padding of the random crop (default 4). */
  readonly padding?: number;
}

/** Crop offsets in the padded image (0..2*padding) and the flip of one image. */
export interface AugmentDraw {
  readonly top: number;
  readonly left: number;
  readonly flip: boolean;
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The generator seed for (seed, rank, epoch): a 32-bit murmur3-style mix (mt19937 uses 32 bits). */
export function augmentSeed(seed: number | bigint, rank: number, epoch: number): number {
  const s = BigInt.asUintN(64, BigInt(seed));
  let h = fmix32(Number(s & 0xffffffffn) ^ 0x9e3779b9);
  h = fmix32(h ^ Number(s >> 32n));
  h = fmix32(h ^ Math.imul(rank + 1, 0x27d4eb2f));
  return fmix32(h ^ Math.imul(epoch + 1, 0x165667b1));
}

/** Draws crop/flip parameters and applies them; one instance per (seed, rank, epoch). */
export class Augmenter {
  readonly generator: CpuGenerator;
  readonly padding: number;
  readonly crop: boolean;
  readonly flip: boolean;

  constructor(opts: AugmentOptions) {
    this.generator = new CpuGenerator(augmentSeed(opts.seed, opts.rank, opts.epoch));
    this.padding = opts.padding ?? 4;
    this.crop = opts.crop ?? true;
    this.flip = opts.flip ?? true;
    if (!Number.isInteger(this.padding) || this.padding < 0 || this.padding > SIDE)
      throw new RangeError(`padding must be an integer in 0..${SIDE}`);
  }

  /** The next image's parameters (top, left, flip), in that draw order. */
  next(): AugmentDraw {
    const span = 2 * this.padding + 1;
    const top = this.crop ? this.generator.random() % span : this.padding;
    const left = this.crop ? this.generator.random() % span : this.padding;
    const flip = this.flip ? (this.generator.random() & 0xffffff) * 2 ** -24 < 0.5 : false;
    return { top, left, flip };
  }

  /** Augments one image from `src` into `dst` (both 3072 CHW bytes) with the next draw. */
  apply(src: Uint8Array, dst: Uint8Array): AugmentDraw {
    const d = this.next();
    cropFlip(src, dst, d, this.padding);
    return d;
  }
}

/**
 * dst[c, y, x] = padded[c, top + y, left + x'] with x' = 31 - x when flipped, where `padded` is
 * `src` with `padding` zero pixels on every side.
 */
export function cropFlip(src: Uint8Array, dst: Uint8Array, d: AugmentDraw, padding = 4): void {
  if (src.byteLength < IMAGE_BYTES || dst.byteLength < IMAGE_BYTES)
    throw new RangeError('cropFlip: images are 3072 bytes');
  const dy = d.top - padding;
  const dx = d.left - padding;
  for (let c = 0; c < 3; c++) {
    const base = c * PLANE;
    for (let y = 0; y < SIDE; y++) {
      const sy = y + dy;
      const row = base + y * SIDE;
      if (sy < 0 || sy >= SIDE) {
        dst.fill(0, row, row + SIDE);
        continue;
      }
      for (let x = 0; x < SIDE; x++) {
        const sx = (d.flip ? SIDE - 1 - x : x) + dx;
        dst[row + x] = sx < 0 || sx >= SIDE ? 0 : (src[base + sy * SIDE + sx] ?? 0);
      }
    }
  }
}
