// `webddp init`: writes SimpleCNN's initial parameters, bit-identical to
// `torch.manual_seed(S); SimpleCNN(width)`, as a safetensors file under PyTorch's state_dict names
// and shapes, so `model.load_state_dict(safetensors.torch.load_file(F))` accepts it. The file is
// written to a temporary name in the same directory, fsynced and renamed into place (atomic;
// src/checkpoint/write-file-node.ts).
import { parseArgs } from 'node:util';
import { serializeSafetensors, type TensorInput } from '../checkpoint/safetensors.ts';
import { initSimpleCnn } from '../nn/init.ts';
import { MAX_WIDTH, MIN_WIDTH, simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import { UsageError, type Command } from './command.ts';
import { parseFlags, required, seedFlag } from './flags.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';

const usage = `webddp init --seed S [--width W] --out F.safetensors

Writes the initial parameters of torch.manual_seed(S); SimpleCNN() (PyTorch's default init,
bit for bit) to F as float32 safetensors with state_dict names and shapes (conv1.weight, ...).
  --seed S    torch.manual_seed value, an integer in [-2^63, 2^64) (required); write negative
              values as --seed=-1
  --width W   model width multiplier, ${MIN_WIDTH} to ${MAX_WIDTH} (default 1 = the seed's SimpleCNN)
  --out F     output file (required); replaced atomically if it exists`;

function parseWidth(v: string | undefined): number {
  if (v === undefined) return 1;
  const w = Number(v);
  if (v.trim() === '' || !Number.isFinite(w) || w < MIN_WIDTH || w > MAX_WIDTH) {
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

/** `webddp init`: see the usage text above. */
export const command: Command = {
  name: 'init',
  summary: 'write PyTorch-identical initial SimpleCNN parameters to a safetensors file',
  usage,
  async run(argv, io) {
    const values = parseFlags(
      () =>
        parseArgs({
          args: [...argv],
          strict: true,
          allowPositionals: false,
          options: {
            seed: { type: 'string' },
            width: { type: 'string' },
            out: { type: 'string' },
            help: { type: 'boolean', default: false },
          },
        }).values,
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    const seed = seedFlag('--seed', required('--seed', values.seed));
    const width = parseWidth(values.width);
    const out = required('--out', values.out);
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
    await writeFileSafely(out, bytes);
    io.err(
      `webddp init: wrote ${out}: ${spec.params.length} tensors, ${spec.total.toLocaleString('en-US')} parameters (seed ${seed}, width ${width}), ${bytes.byteLength} bytes\n`,
    );
    return 0;
  },
};
