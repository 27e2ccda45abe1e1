// English words of the header, run buttons, settings form and its messages, DeepSpeed panel.
import type { Mode } from '../../../config.ts';
import type { FAULT_KINDS } from '../../../runtime/protocol.ts';
import type { RunState } from '../../run-state.ts';
import type { FieldKey } from '../../controls/field-key.ts';
import { plural } from '../numbers.ts';

export const enControls = {
  langName: 'English',
  page: {
    title: 'webddp: data-parallel training you can see',
    tagline: 'Data-parallel training you can see: DataParallel, DDP and ZeRO on WebGPU, checked against PyTorch.',
    language: 'Language',
    adapter: (name: string, software: boolean) =>
      `GPU: ${name}${software ? ' (software renderer: small defaults, expect a few images per second)' : ''}`,
    anAdapter: 'a WebGPU adapter',
    halfArithmetic: (kind: 'matrix' | 'f16' | 'f32'): string =>
      kind === 'matrix'
        ? 'fp16 runs: tensor cores (f16 subgroup matrices, float32 sums) for fc1, float32 arithmetic elsewhere; bf16 runs: float32 arithmetic'
        : kind === 'f16'
          ? 'fp16 runs: shader-f16 but no f16 subgroup matrices: float32 arithmetic on stored halves; bf16 runs: float32 arithmetic'
          : 'fp16 and bf16 runs: halves stored, float32 arithmetic (no shader-f16; Chrome: --enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia may add it)',
    settings: 'Settings',
    nav: {
      lessons: 'Lessons',
      training: 'Training',
      memory: 'Memory',
      calc: 'Calculator',
      ring: 'Ring',
      shards: 'Shards',
      timeline: 'Timeline',
      samples: 'Samples',
      compare: 'Compare',
      log: 'Log',
    },
    contents: 'Views',
    skip: 'Skip to the views',
    docs: 'Docs: ',
    about: (title: string) => `About: ${title}`,
    faultVerbs: {
      throw: 'throws an error',
      exit: 'exits',
      hang: 'stops answering',
      'device-lost': 'loses its GPU device',
      'skip-bucket': 'leaves out its all-reduce of gradient bucket 0',
    } satisfies Record<(typeof FAULT_KINDS)[number], string>,
    faultWhat: (rank: number, verb: string, step: number) => `rank ${rank} ${verb} at its step ${step}`,
    faultBad: (message: string) => `but fault ${message}`,
    faultNote: (spec: string, what: string) =>
      `This page stages a failure (fault=${spec}): ${what}, to show that the run stops with an error naming the rank instead of hanging or going on with half-reduced gradients; with Max restarts above 0, fresh workers then continue from the last checkpoint.`,
    unknownParams: (keys: string) => `Ignored unknown page parameter(s): ${keys}.`,
    notIsolated:
      'The page is not cross-origin isolated, so step and communication times are measured at 0.1 ms resolution only.',
    softwareNote: 'WebGPU runs on a software (CPU) adapter here: training works, but slowly.',
  },
  run: {
    words: {
      idle: 'Ready.',
      starting: 'Starting…',
      running: 'Training…',
      pausing: 'Pausing…',
      paused: 'Paused.',
      stopping: 'Stopping…',
      done: 'Finished.',
      stopped: 'Stopped.',
      failed: 'The run failed.',
    } satisfies Record<RunState | 'idle', string>,
    start: 'Start',
    pause: 'Pause',
    resume: 'Resume',
    stop: 'Stop',
    buttons: 'Run',
    startingWorkers: (n: number) =>
      `starting ${n} ${plural(n, 'worker')} (each acquires its own WebGPU device and compiles its kernels)`,
    compiling: (n: number) =>
      `${n} ${plural(n, 'worker')} ready; compiling the kernels (on a software adapter this takes a while)`,
    readingShard: (epoch: number, w: number, samples: number) =>
      `epoch ${epoch + 1}: reading shard 0 of ${w} (${samples.toLocaleString('en-US')} samples on rank 0; every rank reads its own) for the first step`,
    pausingDetail: 'finishing the steps already queued',
    pausedDetail: 'no step is running',
    stoppingDetail: 'stopping after the current step, then evaluating',
    closing: (message: string) => `${message} (closing the workers…)`,
    preparing: 'preparing the dataset',
    checkpointMismatch: (message: string) => `the checkpoint does not fit this run: ${message}`,
    badFault: (message: string) => `fault ${message}`,
    restarting: (rank: number) => `rank ${rank} failed: restarting the workers from the last checkpoint`,
  },
  form: {
    legend: 'Training',
    more: 'More training controls',
    modeNames: {
      ddp: 'DistributedDataParallel',
      dp: 'DataParallel',
      'balanced-dp': 'BalancedDataParallel',
      zero1: 'ZeRO-1 (shard optimizer)',
      zero2: 'ZeRO-2 (+ shard gradients)',
      zero3: 'ZeRO-3 (+ shard parameters)',
    } satisfies Record<Mode, string>,
    optimizers: { sgd: 'SGD', adam: 'Adam', adamw: 'AdamW' },
    labels: {
      mode: 'Mode',
      workers: 'Workers',
      batchSize: 'Batch per worker',
      gpu0Bsz: 'gpu0_bsz',
      optimizer: 'Optimizer',
      lr: 'Learning rate',
      epochs: 'Epochs',
      width: 'Model width',
      trainLimit: 'Train records',
      seed: 'Seed',
      augment: 'Augment (random crop + flip)',
      gradAccum: 'Gradient accumulation',
      bucketCapMB: 'Bucket cap (MiB)',
      clipGradNorm: 'Clip gradient norm',
      momentum: 'Momentum',
      weightDecay: 'Weight decay',
      schedule: 'LR schedule',
      fp16: 'fp16 mixed precision',
      bf16: 'bf16 mixed precision',
    } satisfies Record<FieldKey, string>,
    hints: {
      mode: '',
      workers: (max: number) => `1 to ${max}; each is a Web Worker with its own WebGPU device`,
      batchSize: 'DP splits a global batch of workers × this',
      gpu0Bsz: 'samples worker 0 takes; the others share the rest',
      optimizer: '',
      lr: '',
      epochs: '',
      width: '1 = the tutorial SimpleCNN; 2 doubles every channel',
      trainLimit: 'use the first N records (0: all)',
      seed: 'initial weights = torch.manual_seed(seed); SimpleCNN()',
      augment: '',
      gradAccum:
        'micro-batches per optimizer step; DDP skips the all-reduce of all but the last (no_sync), DataParallel accumulates .grad',
      bucketCapMB: 'DDP’s bucket_cap_mb: gradients are all-reduced in buckets of this size, last layers first',
      clipGradNorm: 'clip_grad_norm_(max_norm) before each step; 0: off',
      momentum: 'SGD momentum (0: plain SGD)',
      weightDecay: 'L2 for SGD and Adam, decoupled for AdamW',
      schedule: 'empty: constant lr; or TYPE:name=value,… e.g. CosineAnnealingLR:T_max=100',
      fp16: 'DeepSpeed’s fp16 section: fp32 master weights, fp16 storage, dynamic loss scaling',
      bf16: 'DeepSpeed’s bf16 section: fp32 master weights, bfloat16 storage, no loss scaling (DDP, ZeRO-1, ZeRO-2)',
    },
    fp16Pending:
      'fp16 trains in every mode: DDP and ZeRO-1/2/3 reduce fp16 gradients over the ring (ZeRO-3 also all-gathers fp16 parameters); DataParallel’s device 0 keeps the fp32 master and the loss scale and exchanges fp16 parameters and gradients with its replicas.',
    enterNumber: (label: string) => `${label}: enter a number`,
    scheduleProblem: (issues: string) => `LR schedule: ${issues}`,
  },
  placement: {
    legend: 'Where the workers run',
    own: 'each worker its own device',
    shared: 'workers share one device',
    hint: 'Own devices: every worker has its own GPUDevice and gradients go round a ring between the workers on the host. One shared device: every worker runs in one Web Worker on one GPUDevice and DDP sums the gradients on the GPU.',
    notAccepted:
      'Only float32 DDP with two or more workers can share one device; this run gives each worker its own device.',
  },
  issues: {
    int: (field: string, lo: string, hi: string, got: string) =>
      `${field} must be an integer from ${lo} to ${hi} (got ${got})`,
    number: (field: string, op: string, lo: string, hi: string, got: string) =>
      `${field} must be a number ${op} ${lo} and <= ${hi} (got ${got})`,
    oneOf: (field: string, list: string, got: string) => `${field} must be one of ${list} (got ${got})`,
    bool: (field: string, got: string) => `${field} must be true or false (got ${got})`,
    needsTwo: (mode: string) => `${mode} needs at least 2 workers`,
    gpu0: (given: string, global: string) => `gpu0Bsz (${given}) cannot exceed the global batch (${global})`,
    rankFailed: (rank: string, during: string, reason: string) => `rank ${rank} failed during ${during}: ${reason}`,
    stepOf: (step: string, epoch: string) => `step ${step} of epoch ${epoch}`,
    bf16Mode: (mode: string, modes: string) =>
      `bf16 is not supported with mode ${mode}: bf16 mixed precision runs with ${modes}`,
  },
  deepspeed: {
    legend: 'DeepSpeed config',
    intro: 'Load a `ds_config.json` or paste one: its settings fill the form, with DeepSpeed’s meaning.',
    file: 'Load a file',
    paste: 'or paste it here',
    apply: 'Apply to the settings',
    applied: (global: number, micro: number, accum: number, world: number) =>
      `Applied: train_batch_size ${global} = ${micro} per worker × ${accum} accumulation × ${world} workers.`,
    refused: 'Refused, nothing changed:',
    syntax: (issue: string) => `Not valid JSON: ${issue}`,
    shown: 'What the config sets',
    field: 'setting',
    value: 'value',
    defaulted: 'DeepSpeed’s default',
  },
};
