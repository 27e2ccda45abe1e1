// MaxPool2d(2) reference (kernel 2, stride 2, floor mode: an odd last row or column is dropped),
// on [NC, H, W] planes (NC = N * C of an NCHW tensor), as shaders/maxpool2d_*.wgsl.
//   y[p,oh,ow] = max_{i,j in 0..1} x[p,2oh+i,2ow+j]
//   dx[p,ih,iw] = dy[p,ih/2,iw/2] if (ih,iw) is the window's first maximum in row-major order
//                 (and, with reluMask, that maximum is > 0), else 0
// The first maximum is PyTorch's CPU rule (`val > max || isnan(val)`, so a NaN wins: the last NaN
// of a window is its argmax, and the NaN propagates).
// reluMask fuses the ReLU backward of a pool whose input r = relu(z) is a ReLU output:
// dz = dr * (r > 0). The WGSL kernels compare with `>` only, so they differ from PyTorch (and
// from this reference) when a window holds a NaN that is not its first element.
import { checkDim, expectLength, output, type Tensor } from './tensor.ts';

/** Sizes of a MaxPool2d(2) over `nc` planes of h x w (output planes are floor(h/2) x floor(w/2)). */
export interface MaxPool2dShape {
  readonly nc: number;
  readonly h: number;
  readonly w: number;
}

function check(s: MaxPool2dShape): void {
  checkDim('maxpool2d nc', s.nc);
  if (s.h < 2 || s.w < 2) throw new RangeError(`maxpool2d needs h, w >= 2 (got ${s.h} x ${s.w})`);
  checkDim('maxpool2d h', s.h);
  checkDim('maxpool2d w', s.w);
}

/** Index into x of the first maximum of the window whose top-left element is x[base]. */
function argmax(x: Tensor, base: number, w: number): number {
  let arg = base;
  let m = x[base]!;
  for (const at of [base + 1, base + w, base + w + 1]) {
    const v = x[at]!;
    if (v > m || Number.isNaN(v)) {
      m = v;
      arg = at;
    }
  }
  return arg;
}

/** Forward: the maximum of each 2x2 window. */
export function maxPool2dForward<T extends Tensor = Float32Array>(
  x: Tensor, // [NC, H, W]
  s: MaxPool2dShape,
  out?: T, // [NC, H/2, W/2]
): T {
  check(s);
  const { nc, h, w } = s;
  const oh = Math.floor(h / 2);
  const ow = Math.floor(w / 2);
  expectLength('maxpool2d x', x, nc * h * w, 'NC*H*W');
  const y = output(out, nc * oh * ow, 'maxpool2d y', 'NC*(H/2)*(W/2)');
  for (let p = 0; p < nc; p++) {
    for (let i = 0; i < oh; i++) {
      for (let j = 0; j < ow; j++) y[(p * oh + i) * ow + j] = x[argmax(x, p * h * w + 2 * i * w + 2 * j, w)]!;
    }
  }
  return y;
}

/** Backward: routes dy to each window's first maximum (written, not accumulated). */
export function maxPool2dBackward<T extends Tensor = Float32Array>(
  x: Tensor, //  [NC, H, W] the forward input
  dy: Tensor, // [NC, H/2, W/2]
  s: MaxPool2dShape,
  reluMask = false,
  out?: T, //    [NC, H, W]
): T {
  check(s);
  const { nc, h, w } = s;
  const oh = Math.floor(h / 2);
  const ow = Math.floor(w / 2);
  expectLength('maxpool2d x', x, nc * h * w, 'NC*H*W');
  expectLength('maxpool2d dy', dy, nc * oh * ow, 'NC*(H/2)*(W/2)');
  const dx = output(out, nc * h * w, 'maxpool2d dx', 'NC*H*W');
  dx.fill(0);
  for (let p = 0; p < nc; p++) {
    for (let i = 0; i < oh; i++) {
      for (let j = 0; j < ow; j++) {
        const arg = argmax(x, p * h * w + 2 * i * w + 2 * j, w);
        if (!reluMask || x[arg]! > 0) dx[arg] = dy[(p * oh + i) * ow + j]!;
      }
    }
  }
  return dx;
}
