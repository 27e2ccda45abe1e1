// `webddp parity FIXTURE [--out RESULT]`: replays a PyTorch fixture on this machine's WebGPU
// device(s), writes the outputs under the fixture's tensor names, and prints the error of every
// tensor against PyTorch. Exit 0 only when every tensor is within the fixture README's tolerances.
import { serializeSafetensors, type TensorInput } from '../checkpoint/safetensors.ts';
import { DataError } from '../data/errors.ts';
import { readRegularFile } from '../data/file-node.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { ddpMetadataRows, runDdpFixture } from '../parity/ddp.ts';
import { compareOutputs, requireExpected } from '../parity/expected.ts';
import { readFixture, type Fixture } from '../parity/fixture.ts';
import { runAutocastFixture } from '../parity/autocast.ts';
import { runGradFixture, type ParityOutput } from '../parity/grad.ts';
import { formatRows, type ParityRow } from '../parity/tolerance.ts';
import { UsageError, type CliEnv, type CliIO } from './command.ts';
import { ADAPTER_FLAG } from './common-flags.ts';
import { cliDevice, parseAdapter, settleWorkerAdapter } from './device.ts';
import { str } from './flags.ts';
import { defineCommand } from './parser.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';
import { checkOutputFileFlag } from './output-flags.ts';

interface Replay {
  outputs: ParityOutput[];
  rows: ParityRow[];
  meta: Record<string, string>;
}

async function replay(
  f: Fixture,
  adapter: ReturnType<typeof parseAdapter>,
  io: CliIO,
  env: CliEnv | undefined,
): Promise<Replay> {
  const progress = (what: string) => io.err(`parity: ${what}\n`);
  if (f.kind !== 'ddp') {
    const gpu = await cliDevice(adapter, io, 'parity', f.kind === 'autocast_fp16');
    try {
      const run = f.kind === 'grad' ? runGradFixture : runAutocastFixture;
      return { outputs: await run(gpu, f, progress), rows: [], meta: {} };
    } finally {
      gpu.destroy();
    }
  }
  if (!env) throw new Error('a ddp replay needs the bundled rank worker (run it through bin/webddp.mjs)');
  const r = await runDdpFixture(f, nodeSpawner(env.rankWorkerUrl, await settleWorkerAdapter(adapter)), progress);
  const rows = ddpMetadataRows(f, r);
  return { outputs: r.outputs, rows, meta: { shards: JSON.stringify(r.shards), losses: JSON.stringify(r.losses) } };
}

export const command = defineCommand({
  name: 'parity',
  summary: 'check that this build on this GPU computes what PyTorch computes (fixture replay)',
  synopsis: 'FIXTURE [--out RESULT.safetensors] [--adapter auto|gpu|swiftshader|lavapipe] [--json]',
  description:
    "Replays a fixture made by PyTorch (the package's fixtures/*.safetensors; in a checkout,\n" +
    'test/fixtures/gen_fixtures.py and scripts/make-fixture.py make more) on WebGPU and compares every\n' +
    "output with PyTorch's:\n" +
    '  kind "grad": logits, loss, every gradient, two steps of each optimizer, clip_grad_norm_;\n' +
    '  kind "ddp":  the DistributedDataParallel run of the spec on world_size workers: final parameters,\n' +
    "               each rank's per-epoch sampler indices (exact) and per-step losses;\n" +
    '  kind "autocast_fp16": one SGD step under CUDA autocast fp16 against webddp\'s fp16 step: logits,\n' +
    '               loss, unscaled gradients, the fp32 master after the step (scripts/make-fixture.py autocast).\n' +
    'Tolerances: rtol 1e-4 / atol 1e-5; Adam/AdamW parameters all within 5e-3 and at least 99.9% within\n' +
    '1e-4 + 1e-3|x|; autocast_fp16: m x 2^-11 x the largest |value| of each tensor (docs/precision.md). Expected tensors may be F32, F16, BF16 or F64 (decoded by dtype).',
  args: ['[FIXTURE]'],
  flags: [
    {
      flags: '--out <RESULT>',
      help: 'write the outputs (fixture tensor names; ddp: shards/losses in the metadata) to a safetensors file',
    },
    ADAPTER_FLAG,
    { flags: '--json', help: 'print the per-tensor results as one JSON line instead of the table' },
  ],
  epilog:
    'Exit code 0 only if everything passes; a fixture with no expected output to compare fails (nothing\n' +
    'checked is not a pass).',
  async run(values, positionals, io, env) {
    if (positionals.length !== 1) throw new UsageError('give exactly one FIXTURE file');
    const path = positionals[0] ?? '';
    const out = str(values.out);
    if (out !== undefined) await checkOutputFileFlag('--out', out); // before the replay: a result never lost
    const bytes = await readRegularFile(path).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(e instanceof DataError ? e.message : `cannot read ${path}: ${e.code ?? e.message}`);
    });
    const fixture = readFixture(new Uint8Array(bytes), path);
    requireExpected(fixture); // before any GPU work: a fixture with nothing to compare fails at once
    const { outputs, rows: extra, meta } = await replay(fixture, parseAdapter(str(values.adapter)), io, env);
    const rows: ParityRow[] = [...compareOutputs(fixture, outputs), ...extra];
    // rows shown, not judged (the autocast replay's convolution gradients) neither pass nor fail
    const shown = rows.filter((r) => r.rule === 'reported').length;
    const judged = rows.length - shown;
    const nothing = judged === 0;
    const failed = rows.filter((r) => !r.ok);
    const ok = failed.length === 0 && !nothing;
    if (out !== undefined)
      await writeResult(out, outputs, {
        fixture: path,
        kind: fixture.kind,
        ok: String(ok),
        ...meta,
      });
    if (values.json) {
      io.out(
        `${JSON.stringify({ fixture: path, kind: fixture.kind, ok, ...(nothing ? { error: 'nothing was checked' } : {}), tensors: rows.map((r) => ({ name: r.name, rule: r.rule, ok: r.ok, maxAbs: r.main.maxAbs, maxRel: r.main.maxRel, mismatches: r.main.mismatches, count: r.main.count, ...(r.fraction !== undefined ? { fraction: r.fraction } : {}) })) })}\n`,
      );
    } else {
      io.out(`${formatRows(rows)}\n`);
      io.out(
        nothing
          ? `parity FAILED: nothing was checked: none of the replay's outputs has an expected tensor in ${path}\n`
          : ok
            ? `parity OK: ${judged} checks match PyTorch${shown ? ` (${shown} more shown, not judged)` : ''}\n`
            : `parity FAILED: ${failed.length} of ${rows.length} checks out of tolerance (${failed.map((r) => r.name).join(', ')})\n`,
      );
    }
    return ok ? 0 : 1;
  },
});

async function writeResult(
  path: string,
  outputs: readonly ParityOutput[],
  meta: Record<string, string>,
): Promise<void> {
  const tensors: Record<string, TensorInput> = {};
  for (const o of outputs) tensors[o.name] = { dtype: 'F32', shape: o.shape, data: o.data };
  await writeFileSafely(path, serializeSafetensors(tensors, { producer: 'webddp parity', ...meta }), '--out');
}
