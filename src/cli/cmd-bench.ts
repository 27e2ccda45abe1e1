// `webddp bench`: one worker's training throughput at several batch sizes, with the step split
// into forward, backward and optimizer; with --workers, data-parallel step times (bench-dist.ts).
// A table, then one JSON line.
import { parseArgs } from 'node:util';
import { benchmarkTraining, formatKernelProfile, formatTrainBench, type TrainBenchRow } from '../bench/train-step.ts';
import { UsageError, type Command } from './command.ts';
import { runChromiumBench } from './bench-chromium.ts';
import { cliDevice, parseAdapter } from './device.ts';
import { parseTuning, tuningFor } from '../gpu/tuning.ts';
import { tuningOption } from './tuning-option.ts';
import { intFlag, intListFlag, numberFlag, parseFlags } from './flags.ts';
import { runDistBench } from './bench-dist.ts';
import { defaultStoreDir } from './train-data.ts';

const usage = `webddp bench [--batches 32,128,512] [--steps N] [--warmup N] [--width W] [--adapter auto|gpu|swiftshader] [--tuning JSON] [--json]
webddp bench --workers 1,2,4 [--modes ddp,dp] [--colocate] [--batch B] [--steps N] [--warmup N] [--store DIR] [--json]
webddp bench --runtime chromium [--browser PATH] [--browser-flags="..."] [same options]   (the same benchmarks in headless Chromium, bench.html)
webddp bench --runtime chromium --compare tfjs [--batch 64] [--steps 4] [--warmup 2] [--json]

Training throughput (images/s) of one worker on random CIFAR-sized data, each step awaited before
the next is submitted (serial) and with two steps in flight (pipelined: how \`webddp train\` runs one
worker, and how a PyTorch loop runs), and the step time split into forward, backward and optimizer
(GPU timestamps where the adapter has them). On a software
adapter (SwiftShader) the default batches are 8,32 with fewer steps.
With --workers: step time of data-parallel training for each mode and worker count (worker
threads with their own devices, the synthetic dataset), and rank 0's time waiting in collectives;
--colocate adds, beside each DDP row of 2 or more workers, the same run with the ranks sharing one
device (webddp train --colocate).
  --tuning  kernel override constants and split-K targets, e.g.
            '{"kernels":{"conv2d_forward":{"WG_X":128}},"targetThreads":65536}'; default: the
            WEBDDP_TUNING environment variable (as for train and check)
  --profile also time every kernel separately (GPU timestamps; Dawn rounds them to 65.5 us unless
            WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization is set)
  --compare tfjs  (with --runtime chromium) webddp and TensorFlow.js's WebGPU backend training the
            same SimpleCNN (SGD momentum 0.9, random data) in the same page, taking turns: after
            --warmup steps each, --steps rounds of one TF.js step and 4 webddp steps. Images/s of
            both, the ratio, and each side's loss (checked to fall)
  --browser PATH, --browser-flags="..."  (with --runtime chromium) the browser and extra flags, as
            for webddp check (e.g. --browser-flags="--use-angle=vulkan --enable-features=Vulkan" for a GPU);
            --adapter gpu there disallows Chromium's SwiftShader
  --json    print only the JSON line`;

export const command: Command = {
  name: 'bench',
  summary: 'measure training throughput of one worker (images/s, forward/backward/optimizer split)',
  usage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          batches: { type: 'string' },
          steps: { type: 'string' },
          warmup: { type: 'string' },
          width: { type: 'string' },
          adapter: { type: 'string' },
          tuning: { type: 'string' },
          profile: { type: 'boolean', default: false },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', default: false },
          workers: { type: 'string' },
          modes: { type: 'string', default: 'ddp,dp' },
          batch: { type: 'string' },
          store: { type: 'string' },
          runtime: { type: 'string', default: 'node' },
          compare: { type: 'string' },
          browser: { type: 'string' },
          'browser-flags': { type: 'string' },
          colocate: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    const width = values.width === undefined ? 1 : numberFlag('--width', values.width);
    if (values.runtime !== 'node' && values.runtime !== 'chromium')
      throw new UsageError(`--runtime must be node or chromium (got '${values.runtime}')`);
    if (values.compare !== undefined && values.compare !== 'tfjs')
      throw new UsageError(`--compare must be tfjs (got '${values.compare}')`);
    if (values.compare && values.runtime !== 'chromium')
      throw new UsageError('--compare tfjs runs in the browser: add --runtime chromium');
    if (values.runtime === 'chromium') {
      if (!env) throw new Error('--runtime chromium needs the bundled CLI (bin/webddp.mjs)');
      const q = new URLSearchParams();
      if (values.compare) {
        q.set('kind', 'compare');
        if (values.batch) q.set('batch', String(intFlag('--batch', values.batch, 1)));
      } else if (values.workers) {
        q.set('kind', 'dist');
        q.set('workers', values.workers);
        q.set('modes', values.modes);
        if (values.batch) q.set('batch', values.batch);
      } else {
        q.set('kind', 'train');
        if (values.batches) q.set('batches', values.batches);
        if (values.profile) q.set('profile', '1');
      }
      if (values.steps) q.set('steps', values.steps);
      if (values.warmup) q.set('warmup', values.warmup);
      const browser = {
        allowSoftware: values.adapter !== 'gpu',
        ...(values.browser ? { browser: values.browser } : {}),
        ...(values['browser-flags'] ? { flags: values['browser-flags'] } : {}),
      };
      return runChromiumBench(q.toString(), io, env, values.json, browser, 60 * 60_000);
    }
    if (values.workers) {
      return runDistBench(
        {
          workers: intListFlag('--workers', values.workers),
          modes: values.modes,
          batch: values.batch ? intFlag('--batch', values.batch, 1) : 32,
          steps: values.steps ? intFlag('--steps', values.steps, 1) : 10,
          warmup: values.warmup ? intFlag('--warmup', values.warmup, 0) : 2,
          width,
          store: values.store ?? defaultStoreDir(),
          adapter: parseAdapter(values.adapter),
          json: values.json,
          colocate: values.colocate,
        },
        io,
        env,
      );
    }
    const gpu = await cliDevice(parseAdapter(values.adapter), io, 'bench');
    try {
      const soft = gpu.adapter.fallback;
      const batches = values.batches ? intListFlag('--batches', values.batches) : soft ? [8, 32] : [32, 128, 512];
      const steps = values.steps ? intFlag('--steps', values.steps, 1) : soft ? 3 : 50;
      const warmup = values.warmup ? intFlag('--warmup', values.warmup, 0) : soft ? 1 : 10;
      const json = tuningOption(values.tuning);
      const tuning = json ? parseTuning(json, tuningFor(gpu.adapter)) : undefined;
      const rows: TrainBenchRow[] = await benchmarkTraining(
        gpu,
        { batches, steps, warmup, width, profile: values.profile, ...(tuning ? { tuning } : {}) },
        (r) => {
          if (!values.json)
            io.err(
              `batch ${r.batch}: ${r.imagesPerSec.toFixed(1)} images/s (pipelined ${r.pipelinedImagesPerSec.toFixed(1)})\n`,
            );
        },
      );
      const result = {
        runtime: 'node-dawn',
        adapter: gpu.adapter,
        width,
        steps,
        warmup,
        tuning: tuning ?? tuningFor(gpu.adapter),
        rows,
      };
      if (!values.json) io.out(`${formatTrainBench(rows)}\n`);
      if (!values.json && values.profile) for (const r of rows) io.out(`${formatKernelProfile(r)}\n`);
      io.out(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      gpu.destroy();
    }
  },
};
