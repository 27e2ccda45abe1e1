// `webddp train`: data-parallel training in Node, one worker thread (and GPU device) per rank,
// on the built-in synthetic dataset or CIFAR-10 from a path. Logs come from rank 0.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadStateDict, saveStateDict } from '../checkpoint/state-dict.ts';
import { MODES, type TrainConfig } from '../config.ts';
import { validateConfig } from '../parallel/index.ts';
import { Coordinator } from '../runtime/coordinator.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { parseFaultSpec } from '../runtime/fault.ts';
import { FAULT_KINDS } from '../runtime/protocol.ts';
import { UsageError, type Command } from './command.ts';
import { parseAdapter, settleWorkerAdapter } from './device.ts';
import { intFlag, numberFlag, parseFlags } from './flags.ts';
import { defaultStoreDir, prepareData } from './train-data.ts';
import { TrainOutput } from './train-output.ts';
import { TraceCollector } from '../trace/collect.ts';

const usage = `webddp train [--data synthetic|PATH] [--workers W] [--mode ${MODES.join('|')}] [options]

Trains SimpleCNN data-parallel: W worker threads, each with its own WebGPU device (Dawn), a ring
all-reduce between them. --data is the built-in synthetic dataset (default) or CIFAR-10 from a
path (cifar-10-binary.tar.gz, or a directory with the .bin files), imported into --store.
  --epochs N  --batch-size B (per worker; DP splits W x B)  --optimizer sgd|adam|adamw  --lr X
  --momentum X  --weight-decay X  --seed S  --width W  --augment  --no-shuffle  --drop-last
  --train-limit N  --test-limit N      use only the first N records
  --gpu0-bsz N                          BalancedDataParallel: samples on worker 0
  --bucket-cap-mb X  --grad-accum K  --clip-grad-norm X  --check-every K
  --store DIR (default ${defaultStoreDir()})  --adapter auto|gpu|swiftshader  --devices NAME,...
  --step-timeout SECONDS  --log-every N (rank-0 log lines, default 50)  --json (JSON lines)
  --save FILE.safetensors (final parameters, PyTorch names)  --resume FILE.safetensors (start from them)
  --inject-fault RANK:STEP:${FAULT_KINDS.join('|')}   make a rank fail (to see failure handling)
  --trace FILE.json   write every rank's step timeline (data, upload, each layer's forward and backward
                      on the GPU, buckets, ring chunks, waits, optimizer, readbacks) in the Chrome trace
                      event format: open it in https://ui.perfetto.dev or chrome://tracing. Tracing
                      submits each layer on its own, so a traced step runs a little slower`;

const num = { type: 'string' } as const;

export const command: Command = {
  name: 'train',
  summary: 'data-parallel training (DDP, DP, BalancedDP, ZeRO-1/2) on W workers with their own devices',
  usage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          data: { type: 'string', default: 'synthetic' },
          store: num,
          workers: num,
          mode: num,
          epochs: num,
          'batch-size': num,
          optimizer: num,
          lr: num,
          momentum: num,
          'weight-decay': num,
          seed: num,
          width: num,
          augment: { type: 'boolean' },
          'no-shuffle': { type: 'boolean' },
          'drop-last': { type: 'boolean' },
          'train-limit': num,
          'test-limit': num,
          'gpu0-bsz': num,
          'bucket-cap-mb': num,
          'grad-accum': num,
          'clip-grad-norm': num,
          'check-every': num,
          adapter: num,
          devices: num,
          'step-timeout': num,
          'log-every': num,
          json: { type: 'boolean', default: false },
          save: num,
          resume: num,
          'inject-fault': num,
          trace: num,
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    if (!env) throw new Error('webddp train needs the bundled rank worker (run it through bin/webddp.mjs)');
    const int = (flag: string, v: string | undefined, min = 0) =>
      v === undefined ? undefined : intFlag(`--${flag}`, v, min);
    const real = (flag: string, v: string | undefined, zero = true) =>
      v === undefined ? undefined : numberFlag(`--${flag}`, v, zero);
    const optimizer = values.optimizer;
    const partial: Partial<Record<keyof TrainConfig, unknown>> = {
      workers: int('workers', values.workers, 1),
      mode: values.mode,
      epochs: int('epochs', values.epochs, 1),
      batchSize: int('batch-size', values['batch-size'], 1),
      optimizer,
      lr: real('lr', values.lr, false) ?? (optimizer === 'adam' || optimizer === 'adamw' ? 1e-3 : undefined),
      momentum: real('momentum', values.momentum),
      weightDecay: real('weight-decay', values['weight-decay']),
      seed: int('seed', values.seed),
      width: real('width', values.width, false),
      augment: values.augment,
      shuffle: values['no-shuffle'] ? false : undefined,
      dropLast: values['drop-last'],
      trainLimit: int('train-limit', values['train-limit']),
      testLimit: int('test-limit', values['test-limit']),
      gpu0Bsz: int('gpu0-bsz', values['gpu0-bsz']),
      bucketCapMB: real('bucket-cap-mb', values['bucket-cap-mb'], false),
      gradAccum: int('grad-accum', values['grad-accum'], 1),
      clipGradNorm: real('clip-grad-norm', values['clip-grad-norm']),
      checkEvery: int('check-every', values['check-every']),
      stepTimeoutMs:
        values['step-timeout'] === undefined
          ? undefined
          : Math.round(numberFlag('--step-timeout', values['step-timeout']) * 1000),
    };
    const v = validateConfig(Object.fromEntries(Object.entries(partial).filter(([, x]) => x !== undefined)));
    if (!v.ok) throw new UsageError(v.issues.map((i) => i.message).join('; '));
    const config = v.config;
    const parsedFault =
      values['inject-fault'] === undefined ? undefined : parseFaultSpec(values['inject-fault'], config.workers);
    if (parsedFault && !parsedFault.ok) throw new UsageError(`--inject-fault ${parsedFault.message}`);
    const fault = parsedFault?.fault;
    const spec = simpleCnnSpec(config.width);
    const initialParams = values.resume
      ? loadStateDict(new Uint8Array(await readFile(values.resume)), spec, values.resume)
      : undefined;
    const data = await prepareData(values.data, values.store ?? defaultStoreDir(), io, values.json);
    const devices = values.devices
      ? values.devices
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [];
    const out = new TrainOutput(io, values.json, int('log-every', values['log-every']) ?? 50);
    const adapter = await settleWorkerAdapter(parseAdapter(values.adapter), devices[0]);
    const coordinator = await Coordinator.start({
      config,
      data,
      spawn: nodeSpawner(env.rankWorkerUrl, adapter, devices),
      ...(initialParams ? { initialParams } : {}),
      ...(fault ? { fault } : {}),
      ...(values.trace ? { trace: true } : {}),
    });
    const trace = values.trace ? new TraceCollector() : null;
    const onSignal = () => coordinator.stop();
    process.once('SIGINT', onSignal);
    try {
      for await (const e of coordinator.run()) {
        if (e.type === 'step') trace?.add(e.spans);
        out.event(e);
      }
      if (values.save) {
        const [params] = await coordinator.readParams();
        if (!params) throw new Error('rank 0 returned no parameters');
        const tmp = `${values.save}.tmp-${process.pid}`;
        await writeFile(tmp, saveStateDict(spec, params, { config: JSON.stringify(config) }));
        await rename(tmp, values.save);
        if (!values.json) io.err(`saved ${values.save}\n`);
      }
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      if (trace && values.trace) {
        await writeFile(values.trace, JSON.stringify(trace.trace({ mode: config.mode, workers: config.workers })));
        if (!values.json) io.err(`trace: ${values.trace}\n`);
      }
      await coordinator.close();
    }
  },
};
