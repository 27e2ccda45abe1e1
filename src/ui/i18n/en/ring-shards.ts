// English words of the ring all-reduce and DistributedSampler shard views.
import { num, plural } from '../numbers.ts';

export const enRingShards = {
  ring: {
    waiting: 'Ring of workers: waiting for a run',
    sendsTo: (r: number, to: number) => `rank ${r} sends to rank ${to}`,
    star: (w: number) => `DataParallel star of ${w} workers: rank 0 (device 0) linked to every replica`,
    oneWorker: 'One worker: no ring',
    ringOf: (w: number, list: string) => `Ring of ${w} workers: ${list}`,
    startNote: 'Start a run to see the workers exchange gradients.',
    oneNote: 'One worker: there is nothing to reduce, so no chunk moves. Use 2 or more workers to see the ring.',
    starNote:
      'DataParallel: no ring; device 0 scatters inputs, broadcasts parameters and gathers outputs (and gradients) over a link to each replica.',
    noRecording:
      'Transfer recording is off for this run: there are no chunk movements to replay. The counters still come from every worker.',
    summary: (step: number, epoch: number, sent: string, comm: string) =>
      `Step ${step} of epoch ${epoch}: ${sent} sent over all ranks, up to ${comm} in collectives`,
    summaryTransfers: (n: number, slow: string) => `, ${n} transfers${slow ? `, ${slow}` : ''}.`,
    head: (step: number, epoch: number) => `Step ${step} (epoch ${epoch})`,
    oneHead: (head: string) => `${head}: one worker, nothing to reduce.`,
    noneHead: (head: string) => `${head}: no transfers recorded.`,
    skipped: (d: string) => ` · ${d} with nothing in flight skipped`,
    clock: (t: string, span: string, note: string, skip: string) => `real time ${t} of ${span} ms · ${note}${skip}`,
    colRank: 'rank',
    colSent: 'sent this step',
    colTime: 'time in collectives',
    colTransfers: 'transfers sent',
    deviceZero: 'device 0',
    replica: 'replica',
    rankN: (r: number) => `rank ${r}`,
    phase: {
      reduceScatter:
        'each rank adds the gradient chunk it receives; at the end rank r owns chunk r summed over all ranks, its ZeRO shard.',
      allGather:
        "each rank's updated parameter shard travels around the ring; at the end every rank has all the parameters.",
      scalars:
        "each rank's partial sums (here the squared gradient norm of its shard) travel around the ring; then every rank adds them up.",
      rs: 'each rank adds the chunk it receives to its own; at the end each rank owns one fully reduced chunk.',
      ag: 'the reduced chunks travel around the ring and are copied; at the end every rank has all of them.',
      other: 'one rank sends, the next receives.',
    },
    opLabel: {
      allReduce: 'all-reduce',
      reduceScatter: 'reduce-scatter (ZeRO)',
      allGather: 'all-gather (ZeRO)',
      allReduceScalars: 'scalar all-reduce',
      broadcast: 'broadcast',
      barrier: 'barrier',
    },
    phaseName: { 'reduce-scatter': 'reduce-scatter', 'all-gather': 'all-gather', broadcast: 'broadcast' },
    waitingFirst: (head: string) => `${head}: waiting for the first collective.`,
    which: (op: string, k: number, n: number) => `${op}${n > 1 ? ` ${k} of ${n}` : ''}`,
    skippedWait: '; the GPUs compute until the next collective starts (skipped in the replay)',
    nextWait: '; waiting for the next collective',
    doneLine: (head: string, which: string, wait: string) => `${head} · ${which} done${wait}.`,
    stepLine: (head: string, which: string, phase: string, s: number, n: number, text: string) =>
      `${head} · ${which} · ${phase}, ring step ${s} of ${n}: ${text}`,
    reduced: (head: string, n: number, ops: string) =>
      `${head} · ${n} ${plural(n, 'collective')} (${ops}). Motion is reduced, so each rank shows what it held after each phase.`,
    dp: {
      size: 'how many samples each replica gets this step',
      params: 'a copy of the parameters (replicate)',
      inputs: "each replica's slice of the batch (scatter)",
      logits: 'the outputs, gathered on device 0 to compute the loss (gather)',
      dlogits: "the loss gradient for each replica's outputs, so it can run backward",
      grads: "the replicas' parameter gradients, summed into device 0's (reduce-add)",
    } as Record<string, string>,
    dpPreparing: (head: string) => `${head} · DataParallel: device 0 is preparing the batch.`,
    dpOut: 'device 0 → replicas',
    dpBack: 'replicas → device 0',
    dpMessage: (b: string) => `${b} message`,
    dpLine: (head: string, dir: string, what: string) => `${head} · DataParallel, ${dir}: ${what}.`,
    dpPair: (r: number, out: string, back: string) => `rank ${r}: ${out} out, ${back} back`,
    dpOutcome: (parts: string) => `Device 0's traffic this step: ${parts}. The replicas never talk to each other.`,
    slower: (f: string) => `replayed ${f}× slower than real time`,
    faster: (f: string) => `replayed ${f}× faster than real time`,
    realSpeed: 'replayed at real speed',
    reducedMotion: 'reduced motion: showing where the chunks ended up',
    legendRs: 'reduce-scatter chunk',
    legendAg: 'all-gather chunk',
    legendDp: 'DataParallel message (size)',
    hint: "These are the workers' real transfers, replayed in slow motion. A chunk travels from the moment its sender posts it until the neighbour has received it and added it in. A slow chunk waited for a neighbour that was still busy, for example still running backward.",
    reducedChunk: (c: number) => `c${c} reduced`,
    allChunks: 'all chunks',
    owns: (world: number, own: string) =>
      `After reduce-scatter each rank owns one chunk summed over all ${world} ranks: ${own}.`,
    ownPair: (r: number, c: number) => `rank ${r} c${c}`,
    gathered: (chunks: string, reduced: boolean) =>
      `After all-gather every rank holds all of ${chunks}${reduced ? ', fully reduced' : ''}.`,
    outcome: (n: number, ops: string, parts: string) =>
      `${n === 1 ? 'One collective' : `${n} collectives`} this step (${ops}). ${parts}`,
  },
  shards: {
    show: { current: 'this epoch', previous: 'previous epoch', moved: 'moved since previous' },
    showLabel: 'Show: ',
    groupLabel: 'Which assignment the grid shows',
    empty: 'Start a run to see how DistributedSampler splits the dataset.',
    gridEmpty: 'Dataset index grid: no epoch yet',
    point: 'Point at a cell to see its index and rank.',
    movedWhat: (e: number, prev: string) =>
      `epoch ${e}, indices that changed rank since epoch ${prev} in full colour, the others faded`,
    epochWhat: (e: number) => `epoch ${e}`,
    gridLabel: (what: string, head: string) =>
      `Dataset index grid, ${what}: ${head}. The per-rank lists below give the same information as text.`,
    caption: (what: string, cols: number) =>
      `Showing ${what}. One cell per dataset index, ${cols} per row: index 0 is top left, row k starts at index ${cols}·k.`,
    notSampled: 'not sampled this epoch',
    where: (o: number, dp: boolean, pos: number, n: number, two: number) =>
      `rank ${o}${dp ? ' (device 0)' : ''}, sample ${pos} of its ${n} this epoch${two >= 0 ? `; padded: also given to rank ${two}` : ''}`,
    then: (e: number, was: number) => ` (epoch ${e}: ${was >= 0 ? `rank ${was}` : 'not sampled'})`,
    hover: (i: number, where: string, then: string) => `index ${i}: ${where}${then}`,
    rank: (r: number) => `rank ${r}`,
    readsNone: ' · reads no data: receives its slice of every batch from rank 0',
    samples: (n: number) => ` · ${num(n)} samples: `,
    headEpoch: (e: number) => `Epoch ${e}`,
    headRanks: (w: number) => `${w} ${plural(w, 'rank')}`,
    headTotal: (n: number) => `${num(n)} samples handed out`,
    headDistinct: (n: number) => `${num(n)} distinct indices`,
    headPadded: (n: number) => `${num(n)} padded`,
    headNoPad: 'no padding',
    headMissing: (n: number) => `${num(n)} not sampled`,
    dpPad: (w: number, n: number, list: string) =>
      `The ${w} per-rank samplers pad the index list to a multiple of ${w}, so ${n} ${n === 1 ? 'index is' : 'indices are'} loaded twice: ${list}.`,
    padPair: (i: number, a: string, b: string) => `${i} (ranks ${a} and ${b})`,
    pad: (w: number, n: number, list: string, more: boolean) =>
      `Padding: the dataset does not divide by ${w}, so DistributedSampler repeats the first ${n === 1 ? 'index' : `${n} indices`} of its list to give every rank the same count (dark cells, or split cells showing both ranks): ${list}${more ? ', …' : ''}.`,
    dropLast: (n: number) =>
      `drop_last=True: the ${n} indices that did not fit evenly are skipped this epoch (light grey).`,
    nextCompared: 'The next epoch will be compared with this one.',
    oneRank: 'One rank gets every index; each epoch only changes their order.',
    dpMoved: (e: string) => `${e} changed the order; device 0 still loads every index.`,
    noShuffle: (e: string, p: string) => `shuffle=False: ${e} changes nothing (${p} of the indices moved).`,
    moved: (e: string, seed: number, epoch: number, p: string, prev: number, expect: string) =>
      `${e} reshuffled with seed ${seed} + ${epoch}: ${p} of the indices went to a different rank than in epoch ${prev} (a random reshuffle moves about (W−1)/W = ${expect}).`,
    dpNote:
      "DataParallel: one process (device 0) loads every sample. Each step its batch is every rank's DistributedSampler batch, in rank order, which it splits into chunks and sends to the replicas; so all cells are rank 0's colour.",
    stripes: (w: number) => `shuffle=False: rank r gets r, r+${w}, r+${2 * w}, …, so the ranks form stripes.`,
    padded: 'padded (twice)',
    notSampledKey: 'not sampled',
  },
};
