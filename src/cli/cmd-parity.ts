// `webddp parity FIXTURE [--out RESULT]`: replays a PyTorch fixture on this machine's WebGPU
// device(s), writes the outputs under the fixture's tensor names, and prints the error of every
// tensor against PyTorch. Exit 0 only when every tensor is within the fixture README's tolerances.
import { parseArgs } from 'node:util';
import { serializeSafetensors, type TensorInput } from '../checkpoint/safetensors.ts';
import { DataError } from '../data/errors.ts';
import { readRegularFile } from '../data/file-node.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { ddpMetadataRows, runDdpFixture } from '../parity/ddp.ts';
import { compareOutputs, requireExpected } from '../parity/expected.ts';
import { readFixture, type Fixture } from '../parity/fixture.ts';
import { runGradFixture, type ParityOutput } from '../parity/grad.ts';
import { formatRows, type ParityRow } from '../parity/tolerance.ts';
import { UsageError, type CliEnv, type CliIO, type Command } from './command.ts';
import { cliDevice, parseAdapter, settleWorkerAdapter } from './device.ts';
import { parseFlags } from './flags.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';

const usage = `webddp parity FIXTURE [--out RESULT.safetensors] [--adapter auto|gpu|swiftshader] [--json]

Replays a fixture made by PyTorch (test/fixtures/gen_fixtures.py, scripts/make-fixture.py)
on WebGPU and compares every output with PyTorch's:
  kind "grad": logits, loss, every gradient, two steps of each optimizer, clip_grad_norm_;
  kind "ddp":  the DistributedDataParallel run of the spec on world_size workers: final parameters,
               each rank's per-epoch sampler indices (exact) and per-step losses.
Tolerances: rtol 1e-4 / atol 1e-5; Adam/AdamW parameters all within 5e-3 and at least 99.9% within
1e-4 + 1e-3|x|. Expected tensors may be F32, F16, BF16 or F64 (decoded by dtype). Exit code 0 only if
everything passes; a fixture with no expected output to compare fails (nothing checked is not a pass).
  --out    write the outputs (fixture tensor names; ddp: shards/losses in the metadata) to a file
  --json   print the per-tensor results as one JSON line instead of the table`;

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
  if (f.kind === 'grad') {
    const gpu = await cliDevice(adapter, io, 'parity');
    try {
      return { outputs: await runGradFixture(gpu, f, progress), rows: [], meta: {} };
    } finally {
      gpu.destroy();
    }
  }
  if (!env) throw new Error('a ddp replay needs the bundled rank worker (run it through bin/webddp.mjs)');
  const r = await runDdpFixture(f, nodeSpawner(env.rankWorkerUrl, await settleWorkerAdapter(adapter)), progress);
  const rows = ddpMetadataRows(f, r);
  return { outputs: r.outputs, rows, meta: { shards: JSON.stringify(r.shards), losses: JSON.stringify(r.losses) } };
}

export const command: Command = {
  name: 'parity',
  summary: 'check that this build on this GPU computes what PyTorch computes (fixture replay)',
  usage,
  async run(argv, io, env) {
    const { values, positionals } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        allowPositionals: true,
        options: {
          out: { type: 'string' },
          adapter: { type: 'string' },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('give exactly one FIXTURE file');
    const path = positionals[0] ?? '';
    const bytes = await readRegularFile(path).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(e instanceof DataError ? e.message : `cannot read ${path}: ${e.code ?? e.message}`);
    });
    const fixture = readFixture(new Uint8Array(bytes), path);
    requireExpected(fixture); // before any GPU work: a fixture with nothing to compare fails at once
    const { outputs, rows: extra, meta } = await replay(fixture, parseAdapter(values.adapter), io, env);
    const rows: ParityRow[] = [...compareOutputs(fixture, outputs), ...extra];
    const nothing = rows.length === 0;
    const failed = rows.filter((r) => !r.ok);
    const ok = failed.length === 0 && !nothing;
    if (values.out)
      await writeResult(values.out, outputs, {
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
            ? `parity OK: ${rows.length} checks match PyTorch\n`
            : `parity FAILED: ${failed.length} of ${rows.length} checks out of tolerance (${failed.map((r) => r.name).join(', ')})\n`,
      );
    }
    return ok ? 0 : 1;
  },
};

async function writeResult(
  path: string,
  outputs: readonly ParityOutput[],
  meta: Record<string, string>,
): Promise<void> {
  const tensors: Record<string, TensorInput> = {};
  for (const o of outputs) tensors[o.name] = { dtype: 'F32', shape: o.shape, data: o.data };
  await writeFileSafely(path, serializeSafetensors(tensors, { producer: 'webddp parity', ...meta }));
}
