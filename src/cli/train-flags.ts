// `webddp train`'s flags: what each does and its default (DEFAULT_CONFIG's, so --help cannot drift
// from what a run uses). Parsed by src/cli/parser.ts; turned into a TrainConfig by train-config.ts.
import { DEFAULT_CONFIG as D, MODES, OPTIMIZERS } from '../config.ts';
import { FAULT_KINDS } from '../runtime/protocol.ts';
import { SCHEDULE_TYPES } from '../schedule/index.ts';
import type { FlagSpec } from './command.ts';
import { ADAPTER_FLAG, storeFlag, TUNING_FLAG } from './common-flags.ts';

export const TRAIN_SYNOPSIS = `[--data synthetic|PATH] [--workers W] [--mode ${MODES.join('|')}] [options]`;

export const TRAIN_DESCRIPTION =
  'Trains SimpleCNN data-parallel: W worker threads, each with its own WebGPU device (Dawn), a ring\n' +
  'all-reduce between them. --data is the built-in synthetic dataset (default) or CIFAR-10 from a\n' +
  'path (cifar-10-binary.tar.gz, or a directory with the .bin files), imported into --store.\n' +
  'Progress and the log go to stderr; with --json, one JSON object per event goes to stdout.';

export const TRAIN_EPILOG = `Examples:
  webddp train --workers 4 --epochs 2                         DDP on 4 workers, synthetic data
  webddp train --data cifar-10-binary.tar.gz --mode zero2 --checkpoint-dir ckpt
  webddp train --resume ckpt                                  continue the newest checkpoint in ckpt
  webddp train --deepspeed-config ds_config.json --workers 2  a DeepSpeed config's run

Worker threads move gradients as MessagePort messages (transferred buffers); the environment variable
WEBDDP_TRANSPORT=shared makes them use shared-memory rings (SharedArrayBuffer + Atomics) instead, to
compare the two (the rings measured slower on an H200 host: docs/placements.md); the log says which is used.`;

export function trainFlags(): FlagSpec[] {
  return [
    {
      flags: '--data <D>',
      help: 'synthetic, or CIFAR-10: cifar-10-binary.tar.gz or a directory with the .bin files',
      default: 'synthetic',
    },
    storeFlag(),
    {
      flags: '--workers <W>',
      help: "ranks (torchrun's --nproc_per_node), each with its own device",
      default: D.workers,
    },
    { flags: '--mode <MODE>', help: 'the data-parallel algorithm', choices: MODES, default: D.mode },
    { flags: '--epochs <N>', help: 'epochs to train', default: D.epochs },
    {
      flags: '--batch-size <B>',
      help: 'samples per worker per step (DP and BalancedDP split W x B over the replicas)',
      default: D.batchSize,
    },
    { flags: '--optimizer <OPT>', help: 'torch.optim.SGD, Adam or AdamW', choices: OPTIMIZERS, default: D.optimizer },
    { flags: '--lr <X>', help: 'learning rate (Adam and AdamW: 0.001, as torch.optim)', default: D.lr },
    { flags: '--momentum <X>', help: 'SGD momentum', default: D.momentum },
    { flags: '--weight-decay <X>', help: 'weight decay (AdamW: decoupled)', default: D.weightDecay },
    { flags: '--seed <S>', help: 'torch.manual_seed for the initial parameters and the sampler', default: D.seed },
    { flags: '--width <W>', help: 'model width multiplier (1: the PyTorch tutorial SimpleCNN)', default: D.width },
    { flags: '--augment', help: 'random crop (padding 4) and horizontal flip, as torchvision' },
    { flags: '--no-shuffle', help: 'DistributedSampler(shuffle=False)' },
    { flags: '--drop-last', help: 'DistributedSampler(drop_last=True)' },
    { flags: '--train-limit <N>', help: 'use only the first N training records (0: all)', default: D.trainLimit },
    { flags: '--test-limit <N>', help: 'use only the first N test records (0: all)', default: D.testLimit },
    { flags: '--gpu0-bsz <N>', help: 'BalancedDataParallel: samples on worker 0', default: D.gpu0Bsz },
    { flags: '--bucket-cap-mb <X>', help: "DDP's gradient bucket size in MB (bucket_cap_mb)", default: D.bucketCapMB },
    {
      flags: '--reduce-bucket-size <N>',
      help:
        "ZeRO's bucket in elements (DeepSpeed's reduce_bucket_size; DeepSpeed's default is 5e8): a layer's " +
        'gradients larger than it pass through it in row pieces',
      default: D.reduceBucketSize,
    },
    { flags: '--grad-accum <K>', help: 'gradient accumulation steps per optimizer step', default: D.gradAccum },
    { flags: '--clip-grad-norm <X>', help: 'clip_grad_norm_ max norm (0: off)', default: D.clipGradNorm },
    {
      flags: '--check-every <K>',
      help:
        "check that every replica holds the same parameters every K steps (SHA-256 of each rank's; a pipelined " +
        'run copies them as the step is submitted and hashes them while the next steps run) (0: never)',
      default: D.checkEvery,
    },
    {
      flags: '--schedule <TYPE[:name=value,...]>',
      help:
        "learning-rate schedule per optimizer step, with PyTorch's and DeepSpeed's own type and parameter " +
        `names. TYPE is one of ${SCHEDULE_TYPES.join(', ')}; e.g. CosineAnnealingLR:T_max=100,eta_min=0, ` +
        'StepLR:step_size=30,gamma=0.1, WarmupLR:warmup_num_steps=100 (warmup_max_lr defaults to --lr), ' +
        "OneCycleLR:max_lr=0.1; WarmupDecayLR and WarmupCosineLR's total steps default to the run's",
      default: 'none',
    },
    {
      flags: '--deepspeed-config <FILE>',
      help:
        'a DeepSpeed ds_config.json: batch sizes (train_batch_size = micro-batch x gradient_accumulation_steps x ' +
        '--workers), optimizer, scheduler, fp16/bf16, zero_optimization (stage 0 = ddp, 1 = zero1, 2 = zero2, ' +
        '3 = zero3), gradient_clipping (default 1.0, as DeepSpeed), steps_per_print. The file wins: a flag setting ' +
        'the same thing differently is refused; keys webddp does not implement are refused by name',
    },
    {
      flags: '--fp16',
      help:
        "fp16 mixed precision as DeepSpeed's fp16 section, in every mode: fp16 parameters, gradients and saved " +
        'activations stored as halves, communicated as fp16 (half the bytes), fp32 master weights and optimizer ' +
        "state, dynamic loss scaling with DeepSpeed's defaults (2^16, window 1000, hysteresis 2, min 1). The " +
        'activations the backward reads are halves too. Where the GPU has shader-f16 and f16 subgroup matrices ' +
        "(Node enables Dawn's vulkan_enable_f16_on_nvidia and allow_unsafe_apis toggles for an fp16 run where the " +
        "adapter hides them; the log's 'half arithmetic' line says what the run got), the matrix products the " +
        "tuning's halfMatrix names (default: fc1's forward) multiply halves on the tensor cores with float32 " +
        'sums; the other kernels, and all of them elsewhere, compute in float32 (docs/precision.md)',
    },
    {
      flags: '--bf16',
      help:
        "bf16 mixed precision as DeepSpeed's bf16 section (ddp, zero1, zero2): bfloat16 parameters and gradients, " +
        'communicated as bf16, fp32 master weights and optimizer state, no loss scaling. Not with --fp16. The ' +
        'arithmetic stays float32 (WGSL has no bfloat16 type): every kernel widens the pairs exactly to float32',
    },
    ADAPTER_FLAG,
    {
      flags: '--devices <NAME,...>',
      help: 'adapters by name, comma-separated: rank r uses the one whose name contains NAME number r mod count',
    },
    {
      flags: '--colocate',
      help:
        'every rank in one worker thread sharing one device, each rank with its own buffers and memory counters; ' +
        'every mode and precision the mode table allows. Float32 DDP sums its buckets on the GPU (no readback, no ' +
        'host ring); the other modes and precisions pass their state around the ring as with a device each',
    },
    {
      flags: '--step-timeout <SECONDS>',
      help: 'a rank that takes longer for a step has failed',
      default: D.stepTimeoutMs / 1000,
    },
    { flags: '--log-every <N>', help: "rank 0's log line every N optimizer steps (or steps_per_print)", default: 50 },
    { flags: '--json', help: 'one JSON object per event on stdout instead of the log' },
    { flags: '--save <FILE>', help: 'write the final parameters (PyTorch state_dict names) to FILE.safetensors' },
    {
      flags: '--resume <DIR>',
      help:
        'continue a checkpoint (DIR/step-N, or a --checkpoint-dir: its newest) bit for bit: parameters, optimizer ' +
        'state, epoch and step, sampler, augmentation stream, schedule, loss scaler. Its config applies; only ' +
        '--workers, --epochs, --step-timeout and --check-every may change (another --workers mid-epoch: the ' +
        "checkpoint's sample ledger deals the epoch's remaining samples to the new ranks, each once, and the run " +
        "prints the proof, 'ledger: epoch E: N samples, each once; ...'). Without --data, " +
        'the dataset it records; another dataset is refused',
    },
    { flags: '--resume-from <DIR>', help: 'the same as --resume' },
    {
      flags: '--init-from <FILE>',
      help:
        'start from the parameters in FILE.safetensors (state_dict names, e.g. from --save or webddp init) with a ' +
        'fresh optimizer at epoch 0: weights only, not a resume',
    },
    {
      flags: '--checkpoint-dir <DIR>',
      help:
        'save full checkpoints (DIR/step-N: model.safetensors and optimizer.safetensors under PyTorch names, ' +
        "trainer.json) at each epoch's end, every --checkpoint-every steps, and on Ctrl-C or SIGTERM (then exit " +
        '130 or 143); written to a temporary directory and renamed, so a crash, kill -9 or full disk keeps the ' +
        'previous ones; one run at a time per DIR (DIR/.lock), and what a killed run left is removed',
    },
    {
      flags: '--checkpoint-every <N>',
      help: 'also checkpoint every N optimizer steps (0: only at epoch ends)',
      default: 0,
    },
    { flags: '--keep <K>', help: 'the newest K checkpoints stay (0 keeps all)', default: 3 },
    { flags: '--max-steps <N>', help: 'stop (with a checkpoint) once N optimizer steps are done in all' },
    {
      flags: '--max-restarts <N>',
      help:
        'like torchrun: when a rank dies, hangs, loses its device or its link breaks, start fresh workers from the ' +
        'last checkpoint (or the start) up to N times',
      default: 0,
    },
    {
      flags: '--inject-fault <RANK:STEP:KIND>',
      help:
        `make a rank fail, to see failure handling; KIND is ${FAULT_KINDS.join(', ')} (skip-bucket, ddp: the ` +
        'rank leaves out its all-reduce of gradient bucket 0, a desync)',
    },
    {
      flags: '--debug-collectives',
      help:
        'before every collective, compare its fingerprint (op, bucket, dtype, element count, step) across the ranks ' +
        "and stop at the first mismatch, naming both sides (as PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL; one small " +
        "all-gather more per collective). Without it, a failed run still reports every rank's collective flight " +
        'recorder: the collective each rank was in and the last one it completed',
    },
    {
      flags: '--trace <FILE>',
      help:
        "write every rank's step timeline (data, upload, each layer's forward and backward on the GPU, buckets, " +
        'ring chunks, waits, optimizer, readbacks) as Chrome trace events, for https://ui.perfetto.dev; a ' +
        'traced step runs a little slower',
    },
    TUNING_FLAG,
  ];
}
