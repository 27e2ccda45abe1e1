// `webddp init`: writes SimpleCNN's initial parameters, bit-identical to
// `torch.manual_seed(S); SimpleCNN(width)`, as a safetensors file under PyTorch's state_dict names
// and shapes, so `model.load_state_dict(safetensors.torch.load_file(F))` accepts it. The file is
// written to a temporary name in the same directory, fsynced and renamed into place (atomic;
// src/checkpoint/write-file-node.ts).
import { serializeSafetensors, type TensorInput } from '../checkpoint/safetensors.ts';
import { initSimpleCnn } from '../nn/init.ts';
import { MAX_WIDTH, MIN_WIDTH, simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import { UsageError } from './command.ts';
import { required, seedFlag, str } from './flags.ts';
import { decimalNumber } from '../input/decimal.ts';
import { defineCommand } from './parser.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';

function parseWidth(v: string | undefined): number {
  if (v === undefined) return 1;
  const w = decimalNumber(v, 'typed');
  if (w === undefined || w < MIN_WIDTH || w > MAX_WIDTH) {
    throw new UsageError(`--width must be a number in [${MIN_WIDTH}, ${MAX_WIDTH}] (got '${v}')`);
  }
  return w;
}

/** The state_dict of the arena: F32 tensors in spec (state_dict) order with PyTorch shapes. */
function stateDict(spec: ModelSpec, arena: Float32Array): Record<string, TensorInput> {
  const out: Record<string, TensorInput> = {};
  for (const p of spec.params)
    out[p.name] = { dtype: 'F32', shape: p.shape, data: arena.subarray(p.offset, p.offset + p.size) };
  return out;
}

/** `webddp init`: PyTorch's initial SimpleCNN parameters as a safetensors file. */
export const command = defineCommand({
  name: 'init',
  summary: 'write PyTorch-identical initial SimpleCNN parameters to a safetensors file',
  synopsis: '--seed S [--width W] --out F.safetensors',
  description:
    "Writes the initial parameters of torch.manual_seed(S); SimpleCNN() (PyTorch's default init,\n" +
    'bit for bit) to F as float32 safetensors with state_dict names and shapes (conv1.weight, ...).',
  flags: [
    { flags: '--seed <S>', help: 'torch.manual_seed value, an integer in [-2^63, 2^64) (required)' },
    {
      flags: '--width <W>',
      help: `model width multiplier, ${MIN_WIDTH} to ${MAX_WIDTH} (1 is the PyTorch tutorial's SimpleCNN)`,
      default: 1,
    },
    { flags: '--out <F>', help: 'output file (required); replaced atomically if it exists' },
  ],
  async run(values, _positionals, io) {
    const seed = seedFlag('--seed', required('--seed', str(values.seed)));
    const width = parseWidth(str(values.width));
    const out = required('--out', str(values.out));
    if (out.trim() === '') throw new UsageError("--out must be a file path (got '')");
    const spec = simpleCnnSpec(width);
    const arena = initSimpleCnn(spec, seed);
    const bytes = serializeSafetensors(stateDict(spec, arena), {
      format: 'pt',
      producer: 'webddp',
      seed: seed.toString(),
      width: String(width),
      init: `torch.manual_seed(${seed}); SimpleCNN(width=${width})`,
    });
    await writeFileSafely(out, bytes, '--out');
    io.err(
      `webddp init: wrote ${out}: ${spec.params.length} tensors, ${spec.total.toLocaleString('en-US')} parameters (seed ${seed}, width ${width}), ${bytes.byteLength} bytes\n`,
    );
    return 0;
  },
});
