// Lesson: DataParallel piles memory on device 0, and more so as the batch grows.
import type { Lesson } from './lesson.ts';

export const dpPileup: Lesson = {
  settings: { mode: 'dp', workers: 4, batchSize: 2, trainLimit: 16, epochs: 1, optimizer: 'adam', lr: 0.002 },
  testLimit: 8,
  view: 'memory',
  docs: ['dp', 'ddpNotDp'],
  reached: (r) => {
    const [w0, ...rest] = r.memory;
    return r.state === 'done' && w0 !== undefined && rest.length > 0 && rest.every((m) => m.peak < w0.peak);
  },
  text: {
    en: {
      title: 'DataParallel: device 0 carries the load',
      intro: [
        '`nn.DataParallel` is one process driving every GPU. Each step cuda:0 scatters the batch, copies the parameters to every replica, gathers all outputs back, computes the loss, sums the gradients and runs the only optimizer.',
        'So device 0 holds things no other device holds: the optimizer state, the gathered outputs and the whole batch. Measured on 4 GPUs with a larger model, DataParallel’s memory reads like 38, 22, 21 and 20 GB.',
      ],
      look: [
        'In **Memory per worker**, worker 0’s bar is the longest: open “Numbers per category” and compare its optimizer state with the replicas’ (none).',
        'In **Ring**, there is no ring: a star of messages around device 0.',
        'Then set the batch to 8 and run again: the gap grows, because device 0 also gathers every replica’s outputs.',
        'In **Compare two modes** (DataParallel against DDP), every DDP worker is taller than a DataParallel replica: it keeps its own optimizer state, and its **communication** category, the all-reduce’s gradient buckets out and back, is twice a replica’s. That is DDP’s even price per worker; DataParallel instead piles everything on worker 0.',
      ],
      questions: [
        {
          q: 'Why does worker 0 hold optimizer state and the others none?',
          a: 'DataParallel keeps one model and one optimizer on cuda:0; the replicas are copies made for each forward and thrown away, so only device 0 steps the parameters.',
        },
        {
          q: 'What grows on device 0 when the batch per worker goes from 2 to 8?',
          a: 'The gathered outputs and the loss over the whole global batch (workers × batch) live on device 0, so its activations and communication buffers grow with the global batch, while each replica only sees its own slice.',
        },
      ],
      point: 'worker 0 peaked above every replica.',
    },
    zh: {
      title: 'DataParallel：设备 0 扛下了负担',
      intro: [
        '`nn.DataParallel` 是一个进程驱动所有 GPU。每一步 cuda:0 分发批次、把参数复制给每个副本、把所有输出收集回来、计算损失、对梯度求和，并运行唯一的优化器。',
        '所以设备 0 持有其他设备没有的东西：优化器状态、收集来的输出和整个批次。用更大的模型在 4 卡上实测，DataParallel 的显存读数类似 38、22、21、20 GB。',
      ],
      look: [
        '在 **每个 worker 的显存** 中，worker 0 的条最长：展开“按类别的数字”，比较它和副本的优化器状态（副本没有）。',
        '在 **环** 视图中没有环：只有围绕设备 0 的星形消息。',
        '然后把批大小设为 8 再运行一次：差距变大，因为设备 0 还要收集每个副本的输出。',
        '在 **对比两种模式**（DataParallel 对比 DDP）中，每个 DDP worker 都比 DataParallel 的副本高：它保存自己的优化器状态，而它的 **通信** 类别（all-reduce 往返的梯度桶）是副本的两倍。这是 DDP 在每个 worker 上均摊的代价；DataParallel 则把一切都堆在 worker 0 上。',
      ],
      questions: [
        {
          q: '为什么 worker 0 有优化器状态，而其他 worker 没有？',
          a: 'DataParallel 只在 cuda:0 上保存一个模型和一个优化器；副本是每次前向时复制出来、用完即丢的，所以只有设备 0 更新参数。',
        },
        {
          q: '每个 worker 的批大小从 2 变到 8 时，设备 0 上什么在增长？',
          a: '收集来的输出和整个全局批次（worker 数 × 批大小）上的损失都在设备 0 上，所以它的激活值和通信缓冲区随全局批次增长，而每个副本只看到自己的那一片。',
        },
      ],
      point: 'worker 0 的峰值高于每个副本。',
    },
  },
};
