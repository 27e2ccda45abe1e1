// Lesson: DistributedSampler's shards, padding, and set_epoch reshuffling them.
import type { Lesson } from './lesson.ts';

export const sampler: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 4, trainLimit: 15, epochs: 2 },
  testLimit: 8,
  view: 'shards',
  docs: ['sampler'],
  reached: (r) => r.state === 'done' && r.epochs === 2 && r.moved > 0,
  text: {
    en: {
      title: 'DistributedSampler and set_epoch',
      intro: [
        '`DistributedSampler` gives every rank its own part of the dataset: it shuffles the indices with seed + epoch, pads the list to a multiple of W, and rank r takes every W-th index from r.',
        'Here 15 records on 2 ranks: one index is repeated so both ranks get 8. The run has 2 epochs, and before each one the trainer calls `sampler.set_epoch(epoch)`.',
      ],
      look: [
        'In **Data shards**, read the padding line, then switch the grid to “moved since previous”: about half of the indices changed rank between the epochs.',
      ],
      questions: [
        {
          q: 'What happens if you forget set_epoch?',
          a: 'The generator is seeded with the same seed + 0 every epoch, so each rank sees the same indices in the same order every epoch: the model never sees the other ranks’ data in a different mix.',
        },
        {
          q: 'Why pad instead of dropping the odd record?',
          a: 'Every rank must run the same number of steps, or the ranks waiting in an all-reduce would hang; padding (or `drop_last=True`) makes the counts equal.',
        },
      ],
      point: 'two epochs, and set_epoch moved indices between ranks.',
    },
    zh: {
      title: 'DistributedSampler 与 set_epoch',
      intro: [
        '`DistributedSampler` 给每个 rank 分配数据集中属于它的部分：用 seed + epoch 打乱索引，把列表填充到 W 的倍数，rank r 从 r 开始每隔 W 个取一个。',
        '这里是 2 个 rank、15 条记录：有一个索引被重复，使两个 rank 都拿到 8 个。运行 2 轮，每轮之前训练器都会调用 `sampler.set_epoch(epoch)`。',
      ],
      look: ['在 **数据分片** 中阅读填充说明，然后把网格切换到“与上一轮相比移动的”：两轮之间大约一半的索引换了 rank。'],
      questions: [
        {
          q: '忘记调用 set_epoch 会怎样？',
          a: '生成器每一轮都用同样的 seed + 0 作种子，于是每个 rank 每一轮都以相同顺序看到相同的索引：模型永远看不到与其他 rank 的数据重新混合后的样子。',
        },
        {
          q: '为什么要填充，而不是丢掉多出来的那条记录？',
          a: '每个 rank 必须运行相同的步数，否则在 all-reduce 中等待的 rank 会卡住；填充（或 `drop_last=True`）让数量相等。',
        },
      ],
      point: '运行了两轮，set_epoch 让索引在 rank 之间移动。',
    },
  },
};
