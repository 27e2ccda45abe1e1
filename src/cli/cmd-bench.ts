// `webddp bench`: one worker's training throughput at several batch sizes, with the step split
// into forward, backward and optimizer; with --workers, data-parallel step times (bench-dist.ts).
// A table on stdout (progress on stderr), or one JSON object with --json.
import {
  benchmarkTraining,
  formatProfiles,
  formatTrainBench,
  type Precision,
  type TrainBenchRow,
} from '../throughput/train-step.ts';
import { UsageError } from './command.ts';
import {
  browserAdapter,
  RUNTIME_ADAPTER_FLAG,
  BROWSER_FLAG,
  BROWSER_FLAGS_FLAG,
  RUNTIME_FLAG,
  storeFlag,
  TUNING_FLAG,
} from './common-flags.ts';
import { runChromiumBench } from './bench-chromium.ts';
import { cliDevice, parseAdapter } from './device.ts';
import { parseTuning, tuningFor } from '../gpu/tuning.ts';
import { tuningOption } from './tuning-option.ts';
import { intFlag, intListFlag, numberFlag, str } from './flags.ts';
import { defineCommand } from './parser.ts';
import { runDistBench } from './bench-dist.ts';
import { defaultStoreDir } from './train-data.ts';

export const command = defineCommand({
  name: 'bench',
  summary: 'measure training throughput of one worker (images/s, forward/backward/optimizer split)',
  synopsis: [
    '[--batches 32,128,512] [--steps N] [--warmup N] [--width W] [--adapter auto|gpu|swiftshader|lavapipe] [--json]',
    '--workers 1,2,4 [--modes ddp,dp] [--batch B] [--steps N] [--warmup N] [--json]',
    '--runtime chromium [--browser PATH] [--browser-flags="..."] [same options]',
    '--runtime chromium --compare tfjs [--batch 64] [--steps 4] [--warmup 2] [--json]',
  ].join('\n'),
  description:
    'Training throughput (images/s) of one worker on random CIFAR-sized data, each step awaited before\n' +
    'the next is submitted (serial) and with two steps in flight (pipelined: how `webddp train` runs one\n' +
    'worker, and how a PyTorch loop runs), and the step time split into forward, backward and optimizer\n' +
    '(GPU timestamps where the adapter has them). With --workers: step time of data-parallel training\n' +
    "for each mode and worker count on the synthetic dataset, and rank 0's time waiting in collectives,\n" +
    'in both placements side by side: each rank its own device (a worker thread each), and, for the\n' +
    'modes that run so, the ranks sharing one device (one worker thread, as webddp train --colocate).\n' +
    'With --runtime chromium: the same benchmarks in headless\n' +
    'Chromium (bench.html). Prints a table on stdout (progress on stderr); --json prints one JSON object\n' +
    'instead.',
  flags: [
    {
      flags: '--batches <LIST>',
      help: 'batch sizes to measure, comma-separated (on a software adapter: 8,32)',
      default: '32,128,512',
    },
    { flags: '--steps <N>', help: 'measured steps per row (software adapter: 3; --workers: 10)', default: 50 },
    { flags: '--warmup <N>', help: 'steps before measuring (software adapter: 1; --workers: 2)', default: 10 },
    { flags: '--width <W>', help: 'model width multiplier', default: 1 },
    {
      flags: '--precision <P>',
      help:
        'fp32, fp16 or bf16: the step of a --fp16 / --bf16 run (halves as parameters and saved activations, the ' +
        "optimizer on a float32 master). fp16 asks Node's Dawn for shader-f16 and subgroup matrices (Dawn toggles " +
        "where the adapter hides them) and, where the device has them, computes the products the tuning's " +
        'halfMatrix names (conv-forward, conv-input, conv-weight, linear-forward, linear-weight; default ' +
        'linear-forward) in f16 subgroup matrices with float32 accumulation; bf16 computes in float32 (WGSL has ' +
        'no bfloat16 type). One worker in Node only',
      default: 'fp32',
      choices: ['fp32', 'fp16', 'bf16'],
    },
    RUNTIME_ADAPTER_FLAG,
    TUNING_FLAG,
    {
      flags: '--profile',
      help:
        'also time every kernel separately (GPU timestamps; Dawn rounds them to 65.5 us unless ' +
        'WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization is set), with its TFLOP/s, GB/s and ' +
        'FLOP per byte, and its TFLOP/s as a percentage of a ceiling measured in the same run on the same device: ' +
        'C = A B for n x n matrices (n = 4096 on a GPU, 256 on a software adapter) through a plain float32 WGSL ' +
        'matmul (64 x 64 tiles, 4 x 4 per invocation: the ceiling of the float32 kernels) and, where the device ' +
        'has f16 subgroup matrices, an f16 x f16 -> f32 subgroup-matrix matmul (the ceiling of the kernels that ' +
        "compute in them; --profile asks Node's Dawn for those features as --precision fp16 does). The ceilings are " +
        'printed above the kernels, and are in --json (rows[].ceilings, ' +
        'rows[].kernelRates.<kernel>.ofCeiling and .arithmetic)',
    },
    { flags: '--workers <LIST>', help: 'data-parallel step times for these worker counts (comma-separated)' },
    { flags: '--modes <LIST>', help: 'with --workers: the modes to measure', default: 'ddp,dp' },
    { flags: '--batch <B>', help: 'with --workers or --compare: the batch per worker (--compare: 64)', default: 32 },
    storeFlag(),
    RUNTIME_FLAG,
    {
      flags: '--compare <tfjs>',
      help:
        "with --runtime chromium: webddp and TensorFlow.js's WebGPU backend training the same SimpleCNN (SGD " +
        'momentum 0.9, random data) in the same page, taking turns: after --warmup steps each, --steps rounds of ' +
        "one TF.js step and 4 webddp steps. Images/s of both, the ratio, and each side's loss (checked to fall)",
      choices: ['tfjs'],
    },
    BROWSER_FLAG,
    BROWSER_FLAGS_FLAG,
    { flags: '--json', help: 'print one JSON object (the rows and the adapter) instead of the table' },
  ],
  async run(values, _positionals, io, env) {
    const flag = (k: string) => str(values[k]);
    const json = values.json === true;
    const profile = values.profile === true;
    const runtime = flag('runtime') ?? 'node';
    const modes = flag('modes') ?? 'ddp,dp';
    const workers = flag('workers');
    const batch = flag('batch');
    const steps = flag('steps');
    const warmup = flag('warmup');
    const width = flag('width') === undefined ? 1 : numberFlag('--width', flag('width') ?? '');
    if (flag('compare') && runtime !== 'chromium')
      throw new UsageError('--compare tfjs runs in the browser: add --runtime chromium');
    const precision = (flag('precision') ?? 'fp32') as Precision;
    if (precision !== 'fp32' && (workers || runtime !== 'node'))
      throw new UsageError(
        '--precision fp16/bf16 goes with one worker in Node (not --workers, not --runtime chromium)',
      );
    if (runtime === 'chromium') {
      if (!env) throw new Error('--runtime chromium needs the bundled CLI (bin/webddp.mjs)');
      const q = new URLSearchParams();
      if (flag('compare')) {
        q.set('kind', 'compare');
        if (batch) q.set('batch', String(intFlag('--batch', batch, 1)));
      } else if (workers) {
        q.set('kind', 'dist');
        q.set('workers', workers);
        q.set('modes', modes);
        if (batch) q.set('batch', batch);
      } else {
        q.set('kind', 'train');
        const batches = flag('batches');
        if (batches) q.set('batches', batches);
        if (profile) q.set('profile', '1');
      }
      if (steps) q.set('steps', steps);
      if (warmup) q.set('warmup', warmup);
      browserAdapter(flag('adapter'));
      const browser = flag('browser');
      const browserFlags = flag('browser-flags');
      const options = {
        allowSoftware: flag('adapter') !== 'gpu',
        ...(browser ? { browser } : {}),
        ...(browserFlags ? { flags: browserFlags } : {}),
      };
      return runChromiumBench(q.toString(), io, env, json, options, 60 * 60_000);
    }
    if (workers) {
      return runDistBench(
        {
          workers: intListFlag('--workers', workers),
          modes,
          batch: batch ? intFlag('--batch', batch, 1) : 32,
          steps: steps ? intFlag('--steps', steps, 1) : 10,
          warmup: warmup ? intFlag('--warmup', warmup, 0) : 2,
          width,
          store: flag('store') ?? defaultStoreDir(),
          adapter: parseAdapter(flag('adapter')),
          json,
        },
        io,
        env,
      );
    }
    // every flag is checked before the device is acquired; the defaults depend on the adapter
    const batchList = flag('batches');
    const givenBatches = batchList ? intListFlag('--batches', batchList) : undefined;
    const givenSteps = steps ? intFlag('--steps', steps, 1) : undefined;
    const givenWarmup = warmup ? intFlag('--warmup', warmup, 0) : undefined;
    const tuningJson = tuningOption(flag('tuning'));
    // fp16 runs and profiles ask for shader-f16 and subgroup matrices (the f16 ceiling needs them)
    const gpu = await cliDevice(parseAdapter(flag('adapter')), io, 'bench', precision === 'fp16' || profile);
    try {
      const soft = gpu.adapter.fallback;
      const batches = givenBatches ?? (soft ? [8, 32] : [32, 128, 512]);
      const stepCount = givenSteps ?? (soft ? 3 : 50);
      const warmupCount = givenWarmup ?? (soft ? 1 : 10);
      const tuning = tuningJson ? parseTuning(tuningJson, tuningFor(gpu.adapter)) : undefined;
      const rows: TrainBenchRow[] = await benchmarkTraining(
        gpu,
        { batches, steps: stepCount, warmup: warmupCount, width, precision, profile, ...(tuning ? { tuning } : {}) },
        (r) => {
          if (!json)
            io.err(
              `batch ${r.batch}: ${r.imagesPerSec.toFixed(1)} images/s (pipelined ${r.pipelinedImagesPerSec.toFixed(1)})\n`,
            );
        },
      );
      if (json) {
        const result = {
          runtime: 'node-dawn',
          adapter: gpu.adapter,
          width,
          steps: stepCount,
          warmup: warmupCount,
          precision,
          tuning: tuning ?? tuningFor(gpu.adapter),
          rows,
        };
        io.out(`${JSON.stringify(result)}\n`);
      } else {
        io.out(`${formatTrainBench(rows)}\n`);
        if (profile && rows.some((r) => r.kernels)) io.out(`${formatProfiles(rows)}\n`);
      }
      return 0;
    } finally {
      gpu.destroy();
    }
  },
});
