// English words of the memory, calculator, training curves, log, samples, timeline and compare views.
import type { MemoryCategory } from '../../../memory-categories.ts';
import { num, plural } from '../numbers.ts';

export const enViews = {
  memory: {
    empty: 'Start a run to see each worker’s GPU memory.',
    numbers: 'Numbers per category',
    tableCaption: 'Bytes allocated now, by category',
    worker: (r: number) => `worker ${r}`,
    starRoot: 'cuda:0: scatters, gathers outputs, loss, optimizer',
    starReplica: 'replica: forward/backward only',
    partitioned: (parts: string) => `its 1/W of ${parts}`,
    and: ' and ',
    fullReplica: 'full replica, all-reduces gradients',
    parts: { optimizer: 'optimizer state', gradients: 'gradients', parameters: 'parameters' },
    categories: {
      parameters: 'parameters',
      gradients: 'gradients',
      optimizer: 'optimizer state',
      activations: 'activations',
      communication: 'communication',
      other: 'other',
    } satisfies Record<MemoryCategory, string>,
    peak: 'peak',
    segTitle: (label: string, now: string, peak: string) => `${label}: ${now} now, ${peak} at its peak`,
    peakTitle: (b: string) => `peak ${b}`,
    rowText: (now: string, peak: string) => `${now} now · peak ${peak}`,
    rowLabel: (name: string, now: string, peak: string, parts: string) =>
      `${name}: ${now} allocated, peak ${peak}; ${parts}`,
    colLabel: (name: string, role: string, peak: string, now: string) =>
      `${name} (${role}): peak ${peak}, ${now} allocated at the end`,
    colWorker: 'worker',
    colAllocated: 'allocated',
    colPeak: 'peak',
  },
  calc: {
    title: 'ZeRO memory calculator',
    intro:
      'Model states per rank from the ZeRO paper: parameters, gradients and optimizer state for Ψ parameters on N ranks (activations and buffers not included). Mixed precision keeps fp16 parameters and gradients (2 bytes each) and K = 12 bytes of fp32 master weights and Adam moments.',
    params: 'Parameters',
    paramsHint: 'e.g. 7B, 1.3e9, 545098',
    ranks: 'GPUs (ranks)',
    gpuMemory: 'Memory per GPU (GB)',
    stage: 'ZeRO stage',
    precision: 'Precision',
    fp32: 'fp32',
    fp16: 'fp16 mixed (K = 12)',
    bf16: 'bf16 mixed (K = 12)',
    optimizer: 'Optimizer',
    stageNames: ['0 (DDP)', '1 (optimizer)', '2 (+ gradients)', '3 (+ parameters)'],
    total: 'total',
    fits: (need: string, have: string) => `Fits: ${need} of model states per GPU, ${have} available.`,
    noFit: (need: string, have: string) => `Does not fit: ${need} of model states per GPU, only ${have} available.`,
    fitsNote: 'Activations, buffers and the framework come on top; leave room for them.',
    badParams: (text: string) =>
      `“${text}” is not a parameter count: write a number, optionally with K, M, B or T (7B = 7 000 000 000).`,
    badNumber: (label: string) => `${label}: enter a positive number.`,
    measured: 'Checked against this run',
    measuredIntro: (mode: string, workers: number, params: string, precision: string) =>
      `Formula for SimpleCNN (${params} parameters) in ${mode} on ${workers} ${plural(workers, 'worker')}, ${precision}, against what rank 0 measured:`,
    noRun: 'Run a training (or a comparison) to check the formula against measured memory.',
    category: 'category',
    formula: 'formula',
    measuredCol: 'measured (peak)',
    diffCol: 'difference',
    diffNote:
      'A difference is what the formula leaves out: ZeRO-2’s gradient bucket and ZeRO-3’s working buffer (reduce_bucket_size elements each), and the last rank’s padding to a whole share.',
    diffNoteHalf:
      'In 16-bit mixed precision webddp also keeps float32 gradients beside their 16-bit copy (its kernels compute in float32), so measured gradients exceed the formula: by 4 bytes per parameter in DDP, by less where they are partitioned.',
    sgdMomentum: 'SGD with momentum (K = 4)',
    sgdPlain: 'SGD (K = 0)',
    adam: 'Adam / AdamW (K = 8)',
  },
  curves: {
    stats: {
      epoch: 'epoch',
      step: 'batch',
      loss: 'loss (rank 0, smoothed)',
      test: 'test accuracy',
      ips: 'images/s (all workers)',
      ms: 'step time',
      lr: 'learning rate',
    },
    afterEpoch: 'after epoch 1',
    loss: 'Loss',
    accuracy: 'Accuracy',
    throughput: 'Throughput',
    lrChart: 'Learning rate',
    axisStep: 'step',
    axisLoss: 'cross-entropy',
    axisAcc: 'accuracy',
    axisIps: 'images/s',
    axisLr: 'lr',
    sStep: 'step',
    sSmoothed: 'smoothed',
    sTest: 'test',
    sTrain: 'train (smoothed)',
    sLr: 'lr',
    steps: (n: number) => `${n} steps`,
    lossLabel: (n: string, now: string, test: string) => `Loss chart: ${n}, smoothed loss now ${now}${test}`,
    testLoss: (v: string) => `, test loss ${v}`,
    accLabel: (n: string, now: string, test: string) => `Accuracy chart: ${n}, train accuracy (smoothed) ${now}${test}`,
    testAcc: (v: string) => `, test accuracy ${v}`,
    ipsLabel: (n: string, now: string) => `Throughput chart: ${n}, ${now} images/s now`,
    lrLabel: (n: string, now: string) => `Learning rate chart: ${n}, lr now ${now}`,
  },
  log: {
    label: 'rank 0 log',
    start: (mode: string, w: number, b: number, opt: string, lr: number, extra: string) =>
      `${mode} on ${w} worker(s), batch ${b}/worker, ${opt} lr ${lr}${extra}`,
    rank: (r: number, adapter: string, software: boolean, params: number) =>
      `rank ${r}: ${adapter}${software ? ' (software)' : ''}, ${num(params)} parameters`,
    adapter: 'WebGPU adapter',
    transport: (shared: boolean): string =>
      shared
        ? 'links between workers: shared-memory rings (SharedArrayBuffer + Atomics)'
        : 'links between workers: MessagePort messages (transferred buffers)',
    step: (e: number, s: number, n: number, loss: string, lr: string) =>
      `Epoch ${e} | Batch ${s}/${n} | Loss: ${loss}${lr ? ` | lr ${lr}` : ''}`,
    epoch: (e: number, tl: string, ta: string, vl: string, va: string, samples: number, ips: string, secs: string) =>
      `Epoch ${e} done | train loss ${tl} | train acc ${ta} | test loss ${vl} | test acc ${va} (${samples} images) | ${ips} images/s | ${secs} s`,
    lossScale: (scale: number) => ` | loss scale ${scale}`,
    check: (s: number, same: boolean) =>
      `check at batch ${s}: ${same ? 'all replicas hold identical parameters' : 'REPLICAS DIFFER'}`,
    done: 'done',
    stopped: 'stopped',
    error: (d: string) => `error: ${d}`,
    checkpoint: (g: number, e: number, s: number, n: number, where: string) =>
      `checkpoint: rank 0 saved global step ${g} (epoch ${e}, batch ${s}/${n}) to ${where}; every rank waited for it (the barrier)`,
    restart: (rank: number, kind: string, attempt: number, max: number, from: number, message: string) =>
      `rank ${rank} failed (${kind}): ${message}\nrestart ${attempt} of ${max} (torchrun --max-restarts): every worker closed, fresh workers start from ${from > 0 ? `the checkpoint at global step ${from}` : 'the initial state (no checkpoint yet)'}`,
    resumed: (where: string, e: number, s: number, g: number) =>
      `resuming ${where}: epoch ${e}, batch ${s}, global step ${g} (the checkpoint's settings apply)`,
  },
  samples: {
    right: '✓ right',
    wrong: '✗ wrong',
    predicted: 'predicted ',
    truth: 'true ',
    className: (i: number) => `class ${i}`,
    /** Names of the built-in and CIFAR-10 classes (the dataset stores them in English). */
    classNames: {} as Readonly<Record<string, string>>,
    imageLabel: (i: number, truth: string, pred: string) => `image ${i}: a ${truth}, predicted ${pred}`,
    title: (e: number, s: number) => `rank 0's batch at epoch **${e}**, step **${s}**`,
    score: (right: number, n: number) => `${right} of ${n} predicted right`,
    empty: "Start training to see the images of rank 0's batch and what the model predicts for them.",
    listLabel: "Images of rank 0's batch",
  },
  timeline: {
    empty: 'Start a run to see every rank’s timeline.',
    download: 'Download trace (JSON)',
    legend: { gpu: 'GPU work', opt: 'optimizer', comm: 'collective / wait', io: 'bucket write', data: 'data' },
    rows: { compute: 'GPU', comm: 'comm', data: 'data' },
    rank: (r: number) => `rank ${r}`,
    share: (r: number, comm: string, exposed: string, pct: string, step: string) =>
      `rank ${r}: ${comm} ms communicating, ${exposed} ms of it exposed (${pct}% of its ${step} ms step)`,
    noData: (r: number) => `rank ${r}: no data`,
    summary: (step: number, parts: string) => `Step ${step}, communication not hidden by GPU work: ${parts}.`,
    canvasLabel: (ranks: number, summary: string) => `Timeline of ${ranks} ranks. ${summary}`,
    recorder:
      'Collectives at the failure (every rank’s flight recorder; in the lanes above, the one a rank was in is red)',
    recorderRank: (r: number, entered: number, items: string) =>
      `rank ${r}, ${entered} ${plural(entered, 'collective')} entered: ${items}`,
    recorderItem: (op: string, seq: number, bucket: number | null, step: number, ms: string | null) =>
      `${op} #${seq} (${bucket === null ? '' : `bucket ${bucket}, `}step ${step}, ${ms === null ? 'in flight' : `${ms} ms`})`,
    recorderSilent: (r: number) => `rank ${r}: no recorder (the worker did not answer)`,
  },
  compare: {
    first: 'First mode',
    second: 'Second mode',
    steps: 'Steps each',
    run: 'Run comparison',
    stop: 'Stop',
    empty: 'Uses the settings on the left (workers, batch, optimizer, width) in both modes.',
    fixFirst: 'Fix the settings marked on the left first.',
    badSteps: 'Steps each must be a whole number from 1 to 50.',
    failed: (mode: string, err: string) => `${mode} failed: ${err}`,
    stopped: 'Stopped.',
    progress: (i: number, n: number, mode: string, s: number, steps: number, detail: string) =>
      `${i}/${n}: ${mode}, step ${s}/${steps}${detail ? ` (${detail})` : ''}`,
    summary: (mode: string, peak: string, x: string) => `${mode}: worker 0 peaks at ${peak}, ${x}× the others' mean`,
    colHint: (w: number, b: number, gpu0: string, opt: string, steps: number, ms: string) =>
      `${w} workers · batch ${b}/worker${gpu0} · ${opt} · ${steps} steps · ${ms}/step`,
    gpu0: (n: number) => ` (gpu0_bsz ${n})`,
    imbalance: (x: string) => `worker 0: ${x}× the others' mean peak`,
    numbers: 'Numbers',
    tableCaption: (mode: string) => `${mode}: bytes at the end, by category`,
  },
};
