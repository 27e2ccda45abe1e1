// DeepSpeed's batch arithmetic (DeepSpeedConfig._configure_train_batch_size in
// deepspeed/runtime/config.py): train_batch_size = train_micro_batch_size_per_gpu x
// gradient_accumulation_steps x world size. Missing values are derived with the same floor
// divisions (so a derivation can come out inconsistent), then the same assertions run, with
// DeepSpeed's own wording.

export interface BatchSizes {
  readonly trainBatchSize: number;
  readonly microBatchPerGpu: number;
  readonly gradAccum: number;
}

export interface BatchInput {
  readonly train_batch_size?: number | undefined;
  readonly train_micro_batch_size_per_gpu?: number | undefined;
  readonly gradient_accumulation_steps?: number | undefined;
}

const floorDiv = (a: number, b: number) => Math.floor(a / b);

/** The three sizes for `world` ranks, or DeepSpeed's assertion message. */
export function deriveBatch(
  input: BatchInput,
  world: number,
): { ok: true; sizes: BatchSizes } | { ok: false; issue: string } {
  let train = input.train_batch_size;
  let micro = input.train_micro_batch_size_per_gpu;
  let accum = input.gradient_accumulation_steps;
  // _set_batch_related_parameters, branch for branch.
  if (train !== undefined && micro !== undefined && accum !== undefined) {
    // all given: nothing to derive
  } else if (train !== undefined && micro !== undefined) {
    accum = floorDiv(floorDiv(train, micro), world);
  } else if (train !== undefined && accum !== undefined) {
    micro = floorDiv(floorDiv(train, world), accum);
  } else if (micro !== undefined && accum !== undefined) {
    train = micro * accum * world;
  } else if (train !== undefined) {
    accum = 1;
    micro = floorDiv(train, world);
  } else if (micro !== undefined) {
    train = micro * world;
    accum = 1;
  } else {
    return { ok: false, issue: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided' };
  }
  // _batch_assertion
  if (!(train > 0)) return { ok: false, issue: `Train batch size: ${train} has to be greater than 0` };
  if (!(micro > 0)) return { ok: false, issue: `Micro batch size per gpu: ${micro} has to be greater than 0` };
  if (!(accum > 0)) return { ok: false, issue: `Gradient accumulation steps: ${accum} has to be greater than 0` };
  if (train !== micro * accum * world)
    return {
      ok: false,
      issue:
        'Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size ' +
        `${train} != ${micro} * ${accum} * ${world}`,
    };
  return { ok: true, sizes: { trainBatchSize: train, microBatchPerGpu: micro, gradAccum: accum } };
}
