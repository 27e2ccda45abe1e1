// Lesson: DDP's ring all-reduce, with gradient buckets reduced while backward still runs.
import type { Lesson } from './lesson.ts';

export const ddpRing: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 4, trainLimit: 16, epochs: 1, bucketCapMB: 1 },
  testLimit: 8,
  view: 'timeline',
  equivalence: true,
  docs: ['ddpNotes', 'ddp'],
  reached: (r) => r.state === 'done' && r.commSpans > 0,
  text: {
    en: {
      title: 'DDP: a ring, and buckets that overlap backward',
      intro: [
        '`DistributedDataParallel` runs one process per device, each a full replica. After each backward the replicas average their gradients with a **ring all-reduce**: reduce-scatter, then all-gather, so each rank sends under twice the gradient’s size however many ranks there are.',
        'DDP does not wait for the whole backward: gradients are grouped into buckets of `bucket_cap_mb` (here 1 MiB, from the last layer back), and a bucket is all-reduced as soon as its gradients are ready, while the GPU still computes the earlier layers.',
      ],
      look: [
        'In **Timeline**, each rank’s “comm” row starts while its “GPU” row still shows backward: that overlap is what buckets buy. The share under the lanes is the communication nothing hid.',
        'In **Ring**, watch the chunks travel: reduce-scatter first, then all-gather.',
      ],
      questions: [
        {
          q: 'Why are buckets filled from the last layer backwards?',
          a: 'Backward computes the last layer’s gradients first, so those buckets are ready earliest and their all-reduce can start while the first layers are still being differentiated.',
        },
        {
          q: 'Each rank’s loss differs; why do their parameters stay identical?',
          a: 'They all apply the same averaged gradient from the same starting weights, so every optimizer step is the same on every rank; the log’s “check” lines compare a hash of every rank’s parameters.',
        },
      ],
      point: 'the timeline shows communication on every rank.',
    },
    zh: {
      title: 'DDP：环，以及与反向传播重叠的桶',
      intro: [
        '`DistributedDataParallel` 每个设备一个进程，每个都是完整副本。每次反向传播之后，副本用 **环形 all-reduce** 平均梯度：先 reduce-scatter，再 all-gather，因此无论多少 rank，每个 rank 发送的数据都不到梯度大小的两倍。',
        'DDP 不会等整个反向传播结束：梯度被分组为 `bucket_cap_mb` 大小的桶（这里是 1 MiB，从最后一层往前），一个桶的梯度一就绪就做 all-reduce，此时 GPU 仍在计算前面的层。',
      ],
      look: [
        '在 **时间线** 中，每个 rank 的“通信”行在其“GPU”行仍显示反向传播时就开始了：这种重叠正是桶带来的。下方的比例是没有被掩盖的通信。',
        '在 **环** 视图中观察数据块移动：先 reduce-scatter，再 all-gather。',
      ],
      questions: [
        {
          q: '为什么桶从最后一层往前填？',
          a: '反向传播最先算出最后一层的梯度，所以这些桶最早就绪，它们的 all-reduce 可以在前面几层还在求导时就开始。',
        },
        {
          q: '各 rank 的损失不同，为什么参数始终一致？',
          a: '它们从相同的初始权重出发，应用同一个平均梯度，所以每个 rank 的每次优化器更新都相同；日志中的“检查”行比较每个 rank 参数的哈希值。',
        },
      ],
      point: '时间线显示每个 rank 上都有通信。',
    },
  },
};
