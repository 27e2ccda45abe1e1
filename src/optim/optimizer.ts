// The optimizer interface (create-optimizer.ts builds one). An optimizer updates a contiguous slice
// of the flat parameter arena from the matching slice of gradients (the whole model for DDP; one
// rank's partition for ZeRO), keeping its state (momentum, Adam moments) for that slice only.
import type { Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';

export type OptimizerName = 'sgd' | 'adam' | 'adamw';

export interface OptimizerConfig {
  readonly name: OptimizerName;
  readonly lr: number;
  /** SGD momentum (torch default 0; PyTorch's DDP tutorial trains with 0.9). */
  readonly momentum?: number;
  readonly dampening?: number;
  readonly nesterov?: boolean;
  /** L2 penalty (SGD, Adam) or decoupled decay (AdamW; torch default 0.01). */
  readonly weightDecay?: number;
  readonly betas?: readonly [number, number];
  readonly eps?: number;
}

export interface ArenaSlice {
  readonly params: GPUBuffer;
  readonly grads: GPUBuffer;
  /** First parameter (element index) of the slice in `params`. */
  readonly paramOffset: number;
  /** First gradient element of the slice in `grads` (differs from paramOffset when grads hold only the slice). */
  readonly gradOffset: number;
  readonly count: number;
}

/**
 * An optimizer's state for its slice, under torch.optim's names: `momentum_buffer` (SGD with
 * momentum), `exp_avg` and `exp_avg_sq` (Adam, AdamW), each as long as the slice; `step` is
 * PyTorch's state['step'] (optimizer steps taken).
 */
export interface OptimizerState {
  readonly step: number;
  readonly buffers: Readonly<Record<string, Float32Array>>;
}

export interface Optimizer {
  readonly config: OptimizerConfig;
  /** Steps taken so far (PyTorch's state['step']). */
  readonly steps: number;
  /**
   * Sets SGD's momentum or Adam's beta1 from the next step on (OneCycleLR's cycle_momentum, which
   * writes group['momentum'] / group['betas'][0] before each step).
   */
  setMomentum(m: number): void;
  /** Elements of the slice this optimizer updates. */
  readonly count: number;
  /** The state tensors (after the work submitted so far). */
  readState(): Promise<OptimizerState>;
  /** Replaces the state (a checkpoint's): every buffer readState names, each `count` long. */
  loadState(state: OptimizerState): void;
  /** Records one optimizer step into the caller's encoder; `lr` overrides the configured rate (schedules). */
  record(rec: Recorder, lr?: number): void;
  /**
   * Where the GPU decides whether a step is taken (fp16's loss scaler on the GPU): the Op whose
   * Params depend on the step number, and its Params for step `t` (1-based) at `lr`, packed. The
   * GPU copies the chosen step's Params into the Op before recordDispatch's dispatch runs.
   */
  stepParams(t: number, lr: number): { readonly op: Op; readonly params: ArrayBuffer };
  /** Records the step's dispatch alone (Params chosen on the GPU, stepParams); counts no step. */
  recordDispatch(rec: Recorder): void;
  /** Counts one step the GPU took (the host learns it after the step's work ran). */
  countStep(): void;
  destroy(): void;
}

/** The buffer `name` of a state, checked to be `count` long. */
export function stateBuffer(state: OptimizerState, name: string, count: number): Float32Array {
  const b = state.buffers[name];
  if (!b) throw new Error(`optimizer state has no ${name} (it has ${Object.keys(state.buffers).join(', ') || 'none'})`);
  if (b.length !== count) throw new Error(`optimizer state ${name} holds ${b.length} values, expected ${count}`);
  return b;
}
