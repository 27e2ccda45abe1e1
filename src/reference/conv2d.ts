// Conv2d reference (torch.nn.Conv2d(ci, co, 3, padding=1)): 3x3 kernel, stride 1, zero padding 1,
// NCHW, so the output has the input's H x W. Forward with an optional fused ReLU, backward input
// and backward weight + bias, the same functions as shaders/conv2d_*.wgsl. Sums run in float64.
//   y[n,co,oh,ow]  = act(b[co] + sum_{ci,kh,kw} w[co,ci,kh,kw] * x[n,ci,oh+kh-1,ow+kw-1])
//   dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
//   dw[co,ci,kh,kw] = sum_{n,oh,ow} dy[n,co,oh,ow] * x[n,ci,oh+kh-1,ow+kw-1];  db[co] = sum dy[n,co,:,:]
// dy is the gradient of the pre-activation: the ReLU mask is applied by whoever produced it.
import { checkDim, expectLength, output, type Tensor } from './tensor.ts';

/** Sizes of a 3x3 / stride 1 / padding 1 convolution: input [n, ci, h, w], output [n, co, h, w]. */
export interface Conv2dShape {
  readonly n: number;
  readonly ci: number;
  readonly co: number;
  readonly h: number;
  readonly w: number;
}

function check(s: Conv2dShape): void {
  for (const k of ['n', 'ci', 'co', 'h', 'w'] as const) checkDim(`conv2d ${k}`, s[k]);
}

/** The rows/columns [lo, hi) of an output that tap offset d (-1, 0, 1) reads inside the input. */
function span(d: number, len: number): [number, number] {
  return [Math.max(0, -d), Math.min(len, len - d)];
}

/** Forward: y = act(conv3x3(x, weight) + bias), act = ReLU when `relu`. */
export function conv2dForward<T extends Tensor = Float32Array>(
  x: Tensor, //      [N, CI, H, W]
  weight: Tensor, // [CO, CI, 3, 3]
  bias: Tensor, //   [CO]
  s: Conv2dShape,
  relu = false,
  out?: T, //        [N, CO, H, W]
): T {
  check(s);
  const { n, ci, co, h, w } = s;
  const hw = h * w;
  expectLength('conv2d x', x, n * ci * hw, 'N*CI*H*W');
  expectLength('conv2d weight', weight, co * ci * 9, 'CO*CI*3*3');
  expectLength('conv2d bias', bias, co, 'CO');
  const y = output(out, n * co * hw, 'conv2d y', 'N*CO*H*W');
  const acc = new Float64Array(hw);
  for (let b = 0; b < n; b++) {
    for (let o = 0; o < co; o++) {
      acc.fill(bias[o]!);
      for (let c = 0; c < ci; c++) {
        const xb = (b * ci + c) * hw;
        for (let kh = 0; kh < 3; kh++) {
          const [oh0, oh1] = span(kh - 1, h);
          for (let kw = 0; kw < 3; kw++) {
            const [ow0, ow1] = span(kw - 1, w);
            const wv = weight[((o * ci + c) * 3 + kh) * 3 + kw]!;
            for (let oh = oh0; oh < oh1; oh++) {
              const xr = xb + (oh + kh - 1) * w + kw - 1;
              const ar = oh * w;
              for (let ow = ow0; ow < ow1; ow++) acc[ar + ow] = acc[ar + ow]! + wv * x[xr + ow]!;
            }
          }
        }
      }
      const yb = (b * co + o) * hw;
      for (let i = 0; i < hw; i++) {
        const v = acc[i]!;
        y[yb + i] = relu && v <= 0 ? 0 : v; // NaN stays NaN, as torch.relu
      }
    }
  }
  return y;
}

/** Backward input: dx = the correlation of dy with the flipped kernel (written, not accumulated). */
export function conv2dBackwardInput<T extends Tensor = Float32Array>(
  dy: Tensor, //     [N, CO, H, W]
  weight: Tensor, // [CO, CI, 3, 3]
  s: Conv2dShape,
  out?: T, //        [N, CI, H, W]
): T {
  check(s);
  const { n, ci, co, h, w } = s;
  const hw = h * w;
  expectLength('conv2d dy', dy, n * co * hw, 'N*CO*H*W');
  expectLength('conv2d weight', weight, co * ci * 9, 'CO*CI*3*3');
  const dx = output(out, n * ci * hw, 'conv2d dx', 'N*CI*H*W');
  const acc = new Float64Array(hw);
  for (let b = 0; b < n; b++) {
    for (let c = 0; c < ci; c++) {
      acc.fill(0);
      for (let o = 0; o < co; o++) {
        const gb = (b * co + o) * hw;
        for (let kh = 0; kh < 3; kh++) {
          const [oh0, oh1] = span(kh - 1, h);
          for (let kw = 0; kw < 3; kw++) {
            const [ow0, ow1] = span(kw - 1, w);
            const wv = weight[((o * ci + c) * 3 + kh) * 3 + kw]!;
            for (let oh = oh0; oh < oh1; oh++) {
              const ar = (oh + kh - 1) * w + kw - 1;
              const gr = gb + oh * w;
              for (let ow = ow0; ow < ow1; ow++) acc[ar + ow] = acc[ar + ow]! + wv * dy[gr + ow]!;
            }
          }
        }
      }
      dx.set(acc, (b * ci + c) * hw);
    }
  }
  return dx;
}

/** Backward weight and bias: dw and db (fresh arrays, or written into `out`). */
export function conv2dBackwardWeight<T extends Tensor = Float32Array>(
  dy: Tensor, // [N, CO, H, W] gradient of the pre-activation
  x: Tensor, //  [N, CI, H, W] the layer's input
  s: Conv2dShape,
  out?: { dw: T; db: T }, // dw [CO, CI, 3, 3], db [CO]
): { dw: T; db: T } {
  check(s);
  const { n, ci, co, h, w } = s;
  const hw = h * w;
  expectLength('conv2d dy', dy, n * co * hw, 'N*CO*H*W');
  expectLength('conv2d x', x, n * ci * hw, 'N*CI*H*W');
  const dw = output(out?.dw, co * ci * 9, 'conv2d dw', 'CO*CI*3*3');
  const db = output(out?.db, co, 'conv2d db', 'CO');
  for (let o = 0; o < co; o++) {
    let sb = 0;
    for (let b = 0; b < n; b++) {
      const gb = (b * co + o) * hw;
      for (let i = 0; i < hw; i++) sb += dy[gb + i]!;
    }
    db[o] = sb;
    for (let c = 0; c < ci; c++) {
      for (let kh = 0; kh < 3; kh++) {
        const [oh0, oh1] = span(kh - 1, h);
        for (let kw = 0; kw < 3; kw++) {
          const [ow0, ow1] = span(kw - 1, w);
          let sum = 0;
          for (let b = 0; b < n; b++) {
            const gb = (b * co + o) * hw;
            const xb = (b * ci + c) * hw + (kh - 1) * w + kw - 1;
            for (let oh = oh0; oh < oh1; oh++) {
              const r = oh * w;
              for (let ow = ow0; ow < ow1; ow++) sum += dy[gb + r + ow]! * x[xb + r + ow]!;
            }
          }
          dw[((o * ci + c) * 3 + kh) * 3 + kw] = sum;
        }
      }
    }
  }
  return { dw, db };
}
