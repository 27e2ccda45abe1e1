// `webddp train --help`: every flag of the train command, what it does and its default.
import { MODES } from '../config.ts';
import { FAULT_KINDS } from '../runtime/protocol.ts';
import { SCHEDULE_TYPES } from '../schedule/index.ts';
import { defaultStoreDir } from './train-data.ts';

export const trainUsage = `webddp train [--data synthetic|PATH] [--workers W] [--mode ${MODES.join('|')}] [options]

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
  --colocate   every rank in one worker thread sharing one device, DDP's buckets summed on the GPU
      (no readback, no host ring; float32 DDP only): how W workers on one GPU can be fast
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
      only --workers, --epochs, --step-timeout, --check-every may change. Another --workers
      mid-epoch: the checkpoint's sample ledger deals the epoch's remaining samples to the new
      ranks, each once (the run prints the proof, 'ledger: epoch E: N samples, each once; ...').
      Its data too: without --data, the dataset the checkpoint records (from --store); --data
      that is not the recorded dataset (name, record counts, content id) is refused
  --max-restarts N       like torchrun: when a rank dies, hangs, loses its device or its link breaks,
      start fresh workers from the last checkpoint (or the start) up to N times (default 0)
  --inject-fault RANK:STEP:${FAULT_KINDS.join('|')}   make a rank fail (to see failure handling);
      skip-bucket (ddp) makes the rank leave out its all-reduce of gradient bucket 0: a desync
  --debug-collectives   before every collective, compare its fingerprint (op, bucket, dtype, element
      count, step) across the ranks and stop at the first mismatch, naming both sides (as PyTorch's
      TORCH_DISTRIBUTED_DEBUG=DETAIL; one small all-gather more per collective). Without it, a failed
      run still reports every rank's collective flight recorder: the collective each rank was in and
      the last one it completed
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
                      submits each layer on its own, so a traced step runs a little slower
  --tuning JSON       kernel variants and override constants over each adapter's own, as for bench and
                      check (e.g. '{"convForward":"registers"}'); default: the WEBDDP_TUNING environment
                      variable, else the adapter's tuning. Kernels sum in different orders, so results
                      differ in the last bits`;
