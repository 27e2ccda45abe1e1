// English words of the explanation beside every view, documentation link names, the guided path's frame.

export const enExplain = {
  explain: {
    training: {
      title: 'Training',
      body: [
        'Every worker computes the loss of `SimpleCNN` on its own batch; the curve is rank 0’s, as the tutorial prints it. In DDP the ranks’ losses differ, but they all apply the same averaged gradient, so their parameters stay identical (the run checks this).',
        'Test loss and accuracy are measured on the test split after each epoch. Images/s counts the samples of all workers in a step over the step’s wall time. The learning rate is the one each optimizer step used (a schedule changes it step by step).',
      ],
    },
    memory: {
      title: 'Memory per worker',
      body: [
        'Each worker counts every GPU buffer it creates, like `torch.cuda.memory_allocated()` and `max_memory_allocated()` (the light bar).',
        '`DataParallel` is one process: cuda:0 holds the model, scatters the batch, gathers every output back, computes the loss and owns the only optimizer state. So device 0 fills up first while the others wait. `BalancedDataParallel` gives device 0 a smaller slice (`gpu0_bsz`) to make room; the extra jobs stay.',
        '`DDP` runs one process per device, each a full replica with its own optimizer. After backward, gradients are averaged by all-reduce, so every replica takes the same step: memory is even.',
        'So a DDP worker’s bar is taller than a DataParallel replica’s: it keeps its own optimizer state (a replica keeps none), and its **communication** category holds the gradient buckets of the all-reduce, twice the gradients’ bytes (the buckets leaving the GPU and the averaged ones coming back), where a replica stages one gradient-sized buffer on the way to device 0. DataParallel’s worker 0 holds all of that and more: it is the one that piles up and runs out of memory first. Read the bars by category, not by height alone.',
        'ZeRO removes the copies DDP keeps: stage 1 partitions the optimizer state (each rank updates 1/W of the parameters, then all-gathers them); stage 2 also partitions the gradients (reduce-scatter instead of all-reduce; backward fills one small bucket at a time); stage 3 also partitions the parameters: each layer is all-gathered into a small working buffer just before its forward, and again before its backward, then dropped.',
      ],
    },
    compare: {
      title: 'Compare two modes',
      body: [
        'Trains the settings on the left for a few steps in each mode, one after the other, and puts every worker’s measured memory side by side on one scale.',
        'DataParallel vs DDP at 4 workers reproduces, in miniature, the famous table of DataParallel on 4 GPUs (38, 22, 21, 20 GB): worker 0 carries the optimizer and the gathered outputs.',
        'ZeRO-1, ZeRO-2 and ZeRO-3 against DDP show the optimizer state, then the gradients, then the parameters shrinking to about 1/W per worker.',
      ],
    },
    log: {
      title: 'Rank 0’s log',
      body: [
        'What the tutorial’s `if rank == 0: print(...)` shows: one line every few batches, one per epoch. Only rank 0 prints, so the log is not repeated W times.',
        '“check” lines compare a SHA-256 of every rank’s parameters: DDP replicas must stay bit-identical.',
      ],
    },
    ring: {
      title: 'Ring all-reduce',
      body: [
        'In DDP every worker computes gradients on its own batch, then all workers average them. The workers form a ring: rank r only sends to rank r+1. The gradient is cut into W chunks `c0`…`c(W-1)`.',
        '**Reduce-scatter** (W−1 steps): each step every rank passes one chunk on and adds the one it receives, so each rank ends up owning one chunk summed over all ranks. **All-gather** (W−1 more steps): the summed chunks go round once more. Each rank sends 2(W−1)/W times the gradient’s size: under twice it, however many workers.',
        'Like PyTorch’s `DistributedDataParallel`, webddp reduces gradient buckets (`bucket_cap_mb`, last layers first) while backward is still running, and divides by W first, so the sum is the mean. ZeRO runs the halves apart: reduce-scatter the gradients, each rank updates its shard, all-gather the parameters.',
        '`DataParallel` has no ring: one process on device 0 scatters inputs, copies parameters to every replica, gathers outputs and sums the gradients on device 0.',
      ],
    },
    shards: {
      title: 'Data shards (DistributedSampler)',
      body: [
        '`DistributedSampler` gives each rank its own part of the dataset: it shuffles all indices with a generator seeded `seed + epoch`, pads the list by repeating its first indices until it divides by W (or cuts the tail with `drop_last=True`), and rank r takes every W-th index starting at r.',
        'Call `sampler.set_epoch(epoch)` before each epoch, or every epoch repeats the same order. Compare two epochs to see how many indices move to another rank. With `shuffle=False` rank r gets r, r+W, r+2W, ….',
        'The grid is the dataset, one cell per index, coloured by the rank that trains on it. `DataParallel` is one process: device 0 loads every batch and splits it among the devices.',
      ],
    },
    samples: {
      title: 'What the model sees',
      body: [
        'A few images of **rank 0’s current batch**, the shard its `DistributedSampler` gave it, with what the model predicts for each one now: ✓ right (one name), or ✗ wrong with the prediction and the true class. Early on the guesses are about as good as chance (1 in 10); they improve as training goes on.',
        'These are the stored 32×32 bytes, scaled up. The model does not see them like this: after this picture each channel is normalised with CIFAR-10’s mean and standard deviation (`transforms.Normalize`), as in the PyTorch tutorial.',
      ],
    },
    timeline: {
      title: 'Timeline',
      body: [
        'Each rank’s last steps as measured: GPU work per layer (blue; the optimizer violet), communication (orange: collectives and waits; gold: writing reduced buckets back), data (green). Ticks are ring chunks sent and received.',
        'In DDP the first buckets are all-reduced while the GPU still runs the earlier layers’ backward; what is left over is exposed. The download is the whole run in the Chrome trace format, as `webddp train --trace` writes it.',
        'When a rank fails, every rank’s collective flight recorder appears under the lanes: the collectives it entered, the one it was in (red in its comm lane), its last completed one, and which ranks are behind.',
      ],
    },
    calc: {
      title: 'ZeRO memory calculator',
      body: [
        'The ZeRO paper’s per-rank model states for Ψ parameters on N ranks, with K bytes of optimizer state per parameter: DDP keeps (2 + 2 + K)Ψ in mixed precision; stage 1 divides the K part by N, stage 2 also the gradients, stage 3 everything.',
        'The table checks the formula against the bytes this run measured for SimpleCNN; then type a model size (for example 7B on 4 × 80 GB) to see whether its model states fit.',
      ],
    },
    lessons: {
      title: 'Guided path',
      body: [
        'Ten short lessons, each a prepared run: read the text, start the run, look where it says, then answer the questions (the answers fold out).',
        'Every lesson’s settings are in the address, so a link shares it; the settings stay editable for free exploration.',
      ],
    },
  },
  docs: {
    ddpTutorial: 'DDP tutorial',
    ddp: 'DistributedDataParallel',
    dp: 'DataParallel',
    ddpNotDp: 'why DDP over DP',
    ddpInsteadOfDp: 'DDP instead of DataParallel',
    balanced: 'BalancedDataParallel',
    zero: 'DeepSpeed ZeRO',
    zeroOptimizer: 'ZeroRedundancyOptimizer',
    memory: 'memory_allocated',
    ddpNotes: 'DDP design notes',
    ddpInternals: 'DDP internals',
    sampler: 'torch.utils.data.distributed.DistributedSampler',
    cifarTutorial: 'Training a classifier (CIFAR-10)',
    perfetto: 'Perfetto',
    zeroPaper: 'ZeRO paper',
    dsConfig: 'DeepSpeed config JSON',
    torchrun: 'torchrun (elastic launch)',
    distDebug: 'Debugging torch.distributed (TORCH_DISTRIBUTED_DEBUG)',
    checkpointTutorial: 'Saving and loading models',
    amp: 'Automatic mixed precision',
    dsFp16: 'DeepSpeed fp16 options',
    englishOnly: '',
  },
  lesson: {
    pick: 'Lesson',
    free: 'Free exploration',
    of: (i: number, n: number) => `Lesson ${i} of ${n}`,
    prev: 'Previous lesson',
    next: 'Next lesson',
    load: 'Load this lesson’s run',
    loaded: 'The settings on the left are this lesson’s; press Start (or change them and explore).',
    look: 'What to look at',
    questions: 'Questions',
    answer: 'Answer',
    needs: (feature: string) =>
      `The run part of this lesson needs ${feature}, which this build of the engine does not have yet. Read the text and the questions; the run is left out rather than faked.`,
    goTo: (view: string) => `Go to the ${view} view`,
    point: 'Reached the lesson’s point:',
    comparing: (world: number, batch: number, steps: number) =>
      `Now training the same comparison as webddp check: DDP on ${world} ranks at batch ${batch / world} each against one worker at batch ${batch}, from the same initial parameters and the same samples, ${steps} steps…`,
    compared: (world: number, batch: number, steps: number, diff: string, rel: string, tol: string, equal: boolean) =>
      `Equivalence, measured here: after ${steps} steps, DDP on ${world} ranks × ${batch / world} and one worker × ${batch} differ by at most ${diff} in any parameter, ${rel} of the largest change the training made; the tolerance for float32 sums added in another order is ${tol}: ${equal ? 'equal within it' : 'NOT equal: this is a bug'}.`,
    compareFailed: (err: string) => `The equivalence comparison failed: ${err}`,
  },
};
