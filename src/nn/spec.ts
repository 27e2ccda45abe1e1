// SimpleCNN's parameters in PyTorch state_dict order, with their offsets in the flat parameter and
// gradient arenas. The model (PyTorch's DDP tutorial net):
//   conv1 Conv2d(3, c1, 3, padding=1) -> ReLU -> MaxPool2d(2)        32x32 -> 16x16
//   conv2 Conv2d(c1, c2, 3, padding=1) -> ReLU -> MaxPool2d(2)       16x16 -> 8x8
//   flatten (C, H, W order) -> fc1 Linear(c2*8*8, hidden) -> ReLU -> fc2 Linear(hidden, 10)
// with c1 = 32w, c2 = 64w, hidden = 128w for width multiplier w (w = 1 is exactly the tutorial's SimpleCNN).

export interface ParamSpec {
  /** The state_dict name, e.g. 'conv1.weight'. */
  readonly name: string;
  readonly shape: readonly number[];
  /** Offset in elements in the flat arena. */
  readonly offset: number;
  readonly size: number;
  /** fan_in as torch.nn.init computes it (in_features, or in_channels * kh * kw). */
  readonly fanIn: number;
}

export interface ModelSpec {
  readonly width: number;
  readonly c1: number;
  readonly c2: number;
  readonly hidden: number;
  readonly classes: number;
  /** Input image [C, H, W]. */
  readonly input: readonly [number, number, number];
  readonly params: readonly ParamSpec[];
  /** Total number of parameters (545,098 at width 1). */
  readonly total: number;
}

export const MIN_WIDTH = 0.125;
export const MAX_WIDTH = 16;

export function simpleCnnSpec(width = 1): ModelSpec {
  if (!Number.isFinite(width) || width < MIN_WIDTH || width > MAX_WIDTH) {
    throw new RangeError(`model width must be between ${MIN_WIDTH} and ${MAX_WIDTH} (got ${width})`);
  }
  const c1 = Math.max(1, Math.round(32 * width));
  const c2 = Math.max(1, Math.round(64 * width));
  const hidden = Math.max(1, Math.round(128 * width));
  const classes = 10;
  const shapes: [string, number[], number][] = [
    ['conv1.weight', [c1, 3, 3, 3], 27],
    ['conv1.bias', [c1], 27],
    ['conv2.weight', [c2, c1, 3, 3], c1 * 9],
    ['conv2.bias', [c2], c1 * 9],
    ['fc1.weight', [hidden, c2 * 64], c2 * 64],
    ['fc1.bias', [hidden], c2 * 64],
    ['fc2.weight', [classes, hidden], hidden],
    ['fc2.bias', [classes], hidden],
  ];
  let offset = 0;
  const params = shapes.map(([name, shape, fanIn]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const p: ParamSpec = { name, shape, offset, size, fanIn };
    offset += size;
    return p;
  });
  return { width, c1, c2, hidden, classes, input: [3, 32, 32], params, total: offset };
}

export function paramByName(spec: ModelSpec, name: string): ParamSpec {
  const p = spec.params.find((q) => q.name === name);
  if (!p) throw new Error(`SimpleCNN has no parameter '${name}' (it has ${spec.params.map((q) => q.name).join(', ')})`);
  return p;
}
