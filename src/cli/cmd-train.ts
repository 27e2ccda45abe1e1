// `webddp train`: data-parallel training in Node, one worker thread (and GPU device) per rank,
// on the built-in synthetic dataset or CIFAR-10 from a path. Logs come from rank 0.
import { parseArgs } from 'node:util';
import { loadStateDict, saveStateDict } from '../checkpoint/state-dict.ts';
import { readRegularFile } from '../data/file-node.ts';
import { MODES } from '../config.ts';
import { ElasticRun } from '../runtime/elastic.ts';
import { RankFailedError } from '../runtime/events.ts';
import { encodeCheckpoint, type Snapshot } from '../checkpoint/checkpoint.ts';
import { writeCheckpointDir } from '../checkpoint/dir-node.ts';
import { loadResume, resumeData } from './train-resume.ts';
import { storedDataset } from '../checkpoint/dataset-record.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { parseFaultSpec } from '../runtime/fault.ts';
import { FAULT_KINDS } from '../runtime/protocol.ts';
import { SCHEDULE_TYPES } from '../schedule/index.ts';
import { UsageError, type Command } from './command.ts';
import { parseAdapter, settleWorkerAdapter } from './device.ts';
import { intFlag, parseFlags } from './flags.ts';
import { buildTrainConfig } from './train-config.ts';
import { defaultStoreDir, prepareData } from './train-data.ts';
import { TrainOutput } from './train-output.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';
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
  --reduce-bucket-size N                ZeRO's bucket in elements (DeepSpeed's reduce_bucket_size; default
      65536, DeepSpeed's is 5e8): a layer's gradients larger than it pass through it in row pieces
  --store DIR (default ${defaultStoreDir()})  --adapter auto|gpu|swiftshader  --devices NAME,...
  --step-timeout SECONDS  --log-every N (rank-0 log lines, default 50 or steps_per_print)  --json (JSON lines)
  --save FILE.safetensors (final parameters, PyTorch names)  --resume FILE.safetensors (start from them,
      with a fresh optimizer at epoch 0; --resume-from continues a full checkpoint exactly)
  --checkpoint-dir DIR   save full checkpoints (DIR/step-N: model.safetensors under state_dict names,
      optimizer.safetensors under torch.optim names, trainer.json) at each epoch's end, every
      --checkpoint-every N optimizer steps, and on Ctrl-C (then exit 130); written to a temporary
      directory and renamed, so a crash or a full disk keeps the previous one
  --checkpoint-every N   --keep K (the newest K checkpoints stay, default 3; 0 keeps all)
  --max-steps N          stop (with a checkpoint) once N optimizer steps are done in all
  --resume-from DIR      continue a checkpoint (DIR/step-N, or DIR: its newest) bit for bit: parameters,
      optimizer state, epoch and step, sampler, augmentation stream, schedule; an fp16 run's float32
      master weights (its model.safetensors), loss scaler and skipped steps. Its config applies;
      only --workers (from an epoch's end), --epochs, --step-timeout, --check-every may change.
      Its data too: without --data, the dataset the checkpoint records (from --store); --data
      that is not the recorded dataset (name, record counts, content id) is refused
  --max-restarts N       like torchrun: when a rank dies, hangs, loses its device or its link breaks,
      start fresh workers from the last checkpoint (or the start) up to N times (default 0)
  --inject-fault RANK:STEP:${FAULT_KINDS.join('|')}   make a rank fail (to see failure handling)
  --schedule TYPE[:name=value,...]      learning-rate schedule per optimizer step, with PyTorch's and
      DeepSpeed's own type and parameter names. TYPE is one of
      ${SCHEDULE_TYPES.join(', ')}; e.g.
      CosineAnnealingLR:T_max=100,eta_min=0  StepLR:step_size=30,gamma=0.1
      WarmupLR:warmup_num_steps=100,warmup_type=linear (warmup_max_lr defaults to --lr)
      OneCycleLR:max_lr=0.1  WarmupDecayLR / WarmupCosineLR (total steps default to the run's)
  --deepspeed-config FILE               a DeepSpeed ds_config.json: batch sizes (train_batch_size =
      micro-batch x gradient_accumulation_steps x --workers), optimizer, scheduler, fp16/bf16,
      zero_optimization (stage 0 = ddp, 1 = zero1, 2 = zero2, 3 = zero3), gradient_clipping (default 1.0, as
      DeepSpeed), steps_per_print. The file wins: a flag setting the same thing differently is
      refused; keys webddp does not implement are refused by name.
  --fp16   fp16 mixed precision as DeepSpeed's fp16 section, in every mode: fp16 parameters and
      gradients stored as packed halves, all-reduced / reduce-scattered as fp16 (half the bytes; zero3
      all-gathers fp16 parameter partitions; dp and balanced-dp send replicas fp16 parameters and
      take back fp16 gradients, device 0 keeping the master and the loss scale),
      fp32 master weights and optimizer state, dynamic loss scaling (DeepSpeed's defaults: 2^16,
      window 1000, hysteresis 2, min 1; the ds_config's fp16 section sets them); a step whose
      gradients overflow is skipped and logged as DeepSpeed logs it. The activations the backward
      reads (input, conv and pool outputs) are stored as halves too. The kernels compute in float32:
      it saves parameter, activation and communication memory, not time
  --bf16   bf16 mixed precision as DeepSpeed's bf16 section (ddp, zero1, zero2; the other modes refuse
      it): bfloat16 parameters and gradients stored as packed pairs (the upper 16 bits of a float32,
      rounded to nearest even), all-reduced / reduce-scattered as bf16, fp32 master weights and
      optimizer state, no loss scaling (bf16 has float32's range). Not with --fp16

  --trace FILE.json   write every rank's step timeline (data, upload, each layer's forward and backward
                      on the GPU, buckets, ring chunks, waits, optimizer, readbacks) in the Chrome trace
                      event format: open it in https://ui.perfetto.dev or chrome://tracing. Tracing
                      submits each layer on its own, so a traced step runs a little slower`;

const num = { type: 'string' } as const;

export const command: Command = {
  name: 'train',
  summary: 'data-parallel training (DDP, DP, BalancedDP, ZeRO-1/2/3) on W workers with their own devices',
  usage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          data: num,
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
          'checkpoint-dir': num,
          'checkpoint-every': num,
          keep: num,
          'max-steps': num,
          'resume-from': num,
          'max-restarts': num,
          'deepspeed-config': num,
          fp16: { type: 'boolean' },
          bf16: { type: 'boolean' },
          'reduce-bucket-size': num,
          schedule: num,
          trace: num,
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    if (values.resume && values['resume-from']) throw new UsageError('--resume and --resume-from: give one');
    const resumed = values['resume-from'] ? await loadResume(values['resume-from'], values) : null;
    const built = await buildTrainConfig(resumed ? { ...values, 'deepspeed-config': undefined } : values);
    const config = resumed?.config ?? built.config;
    const { logEvery, notes } = built;
    const intOf = (flag: 'checkpoint-every' | 'keep' | 'max-steps' | 'max-restarts', min: number, dflt: number) => {
      const v = values[flag];
      return typeof v === 'string' ? intFlag(`--${flag}`, v, min) : dflt;
    };
    const checkpointEvery = intOf('checkpoint-every', 1, 0);
    const keep = intOf('keep', 0, 3);
    const maxSteps = values['max-steps'] === undefined ? undefined : intOf('max-steps', 1, 0);
    const maxRestarts = intOf('max-restarts', 0, 0);
    const checkpointDir = values['checkpoint-dir'];
    if (checkpointEvery > 0 && !checkpointDir) throw new UsageError('--checkpoint-every needs --checkpoint-dir');
    if (!env) throw new Error('webddp train needs the bundled rank worker (run it through bin/webddp.mjs)');
    if (!values.json) for (const n of notes) io.err(`${n}\n`);
    const parsedFault =
      values['inject-fault'] === undefined ? undefined : parseFaultSpec(values['inject-fault'], config.workers);
    if (parsedFault && !parsedFault.ok) throw new UsageError(`--inject-fault ${parsedFault.message}`);
    const fault = parsedFault?.fault;
    const spec = simpleCnnSpec(config.width);
    if (resumed && !values.json)
      io.err(
        `resuming ${resumed.dir}: epoch ${resumed.snapshot.position.epoch}, step ${resumed.snapshot.position.step}, ` +
          `global step ${resumed.snapshot.position.globalStep}\n`,
      );
    const initialParams = values.resume
      ? loadStateDict(await readRegularFile(values.resume), spec, values.resume)
      : undefined;
    const storeDir = values.store ?? defaultStoreDir();
    const prepared = resumed
      ? await resumeData(resumed.dir, resumed.dataset, values.data, storeDir, io, values.json)
      : { ...(await prepareData(values.data ?? 'synthetic', storeDir, io, values.json)), fromCheckpoint: false };
    const dataset = storedDataset(prepared.manifest);
    const out = new TrainOutput(io, values.json, logEvery);
    out.data(prepared.manifest, prepared.fromCheckpoint);
    const devices = values.devices
      ? values.devices
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [];
    const adapter = await settleWorkerAdapter(parseAdapter(values.adapter), devices[0]);
    const run = new ElasticRun({
      config,
      data: prepared.data,
      spawn: nodeSpawner(env.rankWorkerUrl, adapter, devices),
      ...(initialParams ? { initialParams } : {}),
      ...(resumed ? { resume: resumed.snapshot } : {}),
      ...(fault ? { fault } : {}),
      ...(values.trace ? { trace: true } : {}),
      maxRestarts,
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(checkpointDir
        ? {
            checkpoint: {
              every: checkpointEvery,
              save: async (s: Snapshot) =>
                writeCheckpointDir(
                  checkpointDir,
                  s.position.globalStep,
                  await encodeCheckpoint(s, spec, dataset),
                  keep,
                ),
            },
          }
        : {}),
    });
    const trace = values.trace ? new TraceCollector() : null;
    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
      run.stop();
    };
    process.once('SIGINT', onSignal);
    try {
      try {
        for await (const e of run.run()) {
          if (e.type === 'step') trace?.add(e.spans);
          out.event(e);
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        if (e instanceof RankFailedError) out.error(e.kind, e.rank, err.message);
        else out.error(err.name, null, err.message);
        throw e;
      }
      if (values.save) {
        const [params] = await run.readParams();
        if (!params) throw new Error('rank 0 returned no parameters');
        await writeFileSafely(values.save, saveStateDict(spec, params, { config: JSON.stringify(config) }));
        if (!values.json) io.err(`saved ${values.save}\n`);
      }
      // Ctrl-C: the checkpoint is written (when asked for); the shell's code for an interrupt.
      return interrupted ? 130 : 0;
    } finally {
      process.off('SIGINT', onSignal);
      if (trace && values.trace) {
        await writeFileSafely(
          values.trace,
          new TextEncoder().encode(JSON.stringify(trace.trace({ mode: config.mode, workers: config.workers }))),
        );
        if (!values.json) io.err(`trace: ${values.trace}\n`);
      }
      await run.close();
    }
  },
};
