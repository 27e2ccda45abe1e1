// `webddp parity FIXTURE [--out RESULT]`: replays a PyTorch fixture on this machine's WebGPU device,
// writes the outputs under the fixture's tensor names, and prints the error of every tensor
// against PyTorch. Exit 0 only when every tensor is within the fixture README's tolerances.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { serializeSafetensors, type TensorInput } from '../checkpoint/safetensors.ts';
import { readFixture } from '../parity/fixture.ts';
import { runGradFixture, type ParityOutput } from '../parity/grad.ts';
import { checkTensor, formatRows, type ParityRow } from '../parity/tolerance.ts';
import { UsageError, type Command } from './command.ts';
import { cliDevice, parseAdapter } from './device.ts';

const usage = `webddp parity FIXTURE [--out RESULT.safetensors] [--adapter auto|gpu|swiftshader] [--json]

Replays a fixture made by PyTorch (shared/fixtures/pytorch/gen_fixtures.py; kind "grad": one
forward/backward, two optimizer steps, clip_grad_norm_) on WebGPU and compares every output tensor
with PyTorch's: rtol 1e-4 / atol 1e-5, and for Adam/AdamW every parameter within 5e-3 with at least
99.9% within 1e-4 + 1e-3|x|. Exit code 0 only if every tensor passes.
  --out    write the outputs (same tensor names as the fixture) to a safetensors file
  --json   print the per-tensor results as one JSON line instead of the table`;

export const command: Command = {
  name: 'parity',
  summary: 'check that this build on this GPU computes what PyTorch computes (fixture replay)',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: [...argv], strict: true, allowPositionals: true,
      options: { out: { type: 'string' }, adapter: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    });
    if (values.help) { io.out(`${usage}\n`); return 0; }
    if (positionals.length !== 1) throw new UsageError('give exactly one FIXTURE file');
    const path = positionals[0] ?? '';
    const bytes = await readFile(path).catch((e: NodeJS.ErrnoException) => { throw new UsageError(`cannot read ${path}: ${e.code ?? e.message}`); });
    const fixture = readFixture(new Uint8Array(bytes), path);
    if (fixture.kind !== 'grad') throw new UsageError(`${path}: kind '${fixture.kind}' fixtures are not supported by this build yet`);
    const gpu = await cliDevice(parseAdapter(values.adapter), io, 'parity');
    let outputs: ParityOutput[];
    try {
      outputs = await runGradFixture(gpu, fixture, (what) => io.err(`parity: ${what}\n`));
    } finally {
      gpu.destroy();
    }
    const rows: ParityRow[] = [];
    for (const o of outputs) {
      const t = fixture.st.tensors.get(o.name);
      if (!t) continue;
      const expected = new Float32Array(t.data.slice().buffer);
      rows.push(checkTensor(o.name, o.rule, o.data, expected));
    }
    const failed = rows.filter((r) => !r.ok);
    if (values.out) await writeResult(values.out, outputs, { fixture: path, ok: String(failed.length === 0) });
    if (values.json) {
      io.out(`${JSON.stringify({ fixture: path, ok: failed.length === 0, tensors: rows.map((r) => ({ name: r.name, rule: r.rule, ok: r.ok, maxAbs: r.main.maxAbs, maxRel: r.main.maxRel, mismatches: r.main.mismatches, count: r.main.count, ...(r.fraction !== undefined ? { fraction: r.fraction } : {}) })) })}\n`);
    } else {
      io.out(`${formatRows(rows)}\n`);
      io.out(failed.length === 0 ? `parity OK: ${rows.length} tensors match PyTorch\n` : `parity FAILED: ${failed.length} of ${rows.length} tensors out of tolerance (${failed.map((r) => r.name).join(', ')})\n`);
    }
    return failed.length === 0 ? 0 : 1;
  },
};

async function writeResult(path: string, outputs: readonly ParityOutput[], meta: Record<string, string>): Promise<void> {
  const tensors: Record<string, TensorInput> = {};
  for (const o of outputs) tensors[o.name] = { dtype: 'F32', shape: o.shape, data: o.data };
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, serializeSafetensors(tensors, { producer: 'webddp parity', ...meta }));
  await rename(tmp, path);
}
