// Lesson: gradient accumulation with DDP's no_sync (4 micro-batches per optimizer step).
import type { Lesson } from './lesson.ts';

/** 16 records over 2 ranks in micro-batches of 2, 2 per step: 2 optimizer steps. */
const STEPS = 16 / (2 * 2 * 2);

export const noSync: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 2, gradAccum: 2, trainLimit: 16, epochs: 1 },
  testLimit: 8,
  view: 'log',
  docs: ['ddp', 'ddpTutorial'],
  reached: (r) => r.state === 'done' && r.losses.length === STEPS,
  text: {
    en: {
      title: 'Gradient accumulation with no_sync',
      intro: [
        'To train with a batch larger than fits, run several micro-batches and step once. In DDP, every backward would all-reduce; `with model.no_sync():` skips it, so the micro-batches before the last only add into `.grad` locally, and the last backward all-reduces the sum.',
        'Here each rank runs micro-batches of 2, two per optimizer step: an effective batch of 2 × 2 × 2 ranks = 8, with one all-reduce per step instead of two. (DataParallel accumulates too; only `no_sync` is DDP’s.)',
      ],
      look: [
        'In **Rank 0’s log** and **Training**, count the steps: 16 records make 2 optimizer steps, not 4. Set gradient accumulation to 4 for a bigger effective batch.',
        'In **Ring**, one all-reduce per step.',
      ],
      questions: [
        {
          q: 'What would go wrong without no_sync?',
          a: 'Nothing numerically (all-reducing partial sums and adding gives the same mean), but every micro-batch would pay a full all-reduce: as many all-reduces per step as micro-batches.',
        },
        {
          q: 'Why is the loss divided by the number of micro-batches?',
          a: 'So the accumulated gradient is the mean over the effective batch, the same gradient one big batch would give.',
        },
      ],
      point: '16 records made exactly 2 optimizer steps.',
    },
    zh: {
      title: '用 no_sync 做梯度累积',
      intro: [
        '要用放不下的大批次训练，可以跑多个微批次再更新一次。在 DDP 中每次反向传播都会 all-reduce；`with model.no_sync():` 跳过它，所以最后一个之前的微批次只在本地累加到 `.grad`，最后一次反向传播再对总和做 all-reduce。',
        '这里每个 rank 的微批次大小为 2，每次优化器更新包含 2 个：有效批大小为 2 × 2 × 2 个 rank = 8，每步只做一次 all-reduce 而不是两次。（DataParallel 也能累积；只有 `no_sync` 是 DDP 特有的。）',
      ],
      look: [
        '在 **rank 0 的日志** 和 **训练** 中数一数步数：16 条记录只产生 2 次优化器更新，而不是 4 次。把梯度累积设为 4 可得到更大的有效批次。',
        '在 **环** 视图中，每步只有一次 all-reduce。',
      ],
      questions: [
        {
          q: '不用 no_sync 会出什么问题？',
          a: '数值上没有问题（对部分和做 all-reduce 再相加，平均值相同），但每个微批次都要付出一次完整的 all-reduce：每步的 all-reduce 次数等于微批次数。',
        },
        {
          q: '为什么损失要除以微批次数？',
          a: '这样累积的梯度就是有效批次上的平均值，与一个大批次得到的梯度相同。',
        },
      ],
      point: '16 条记录恰好产生 2 次优化器更新。',
    },
  },
};
