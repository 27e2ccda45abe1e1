// Lesson: BalancedDataParallel gives device 0 a smaller slice (gpu0_bsz) to make room.
import type { Lesson } from './lesson.ts';

export const balancedDp: Lesson = {
  settings: {
    mode: 'balanced-dp',
    workers: 3,
    batchSize: 2,
    gpu0Bsz: 1,
    trainLimit: 16,
    epochs: 1,
    optimizer: 'adam',
    lr: 0.002,
  },
  testLimit: 8,
  view: 'memory',
  docs: ['balanced', 'dp'],
  reached: (r) => {
    const [w0, w1] = r.memory;
    return (
      r.state === 'done' &&
      w0 !== undefined &&
      w1 !== undefined &&
      w0.byCategory.activations.peak < w1.byCategory.activations.peak
    );
  },
  text: {
    en: {
      title: 'BalancedDataParallel: a smaller slice for device 0',
      intro: [
        'A common fix for DataParallel’s heavy device 0 is transformer-xl’s `BalancedDataParallel(gpu0_bsz, model)`: device 0 takes only `gpu0_bsz` samples of the global batch and the other devices share the rest.',
        'Here the global batch is 3 × 2 = 6 and `gpu0_bsz` = 1: worker 0 runs forward and backward on 1 sample, the two others share the other 5.',
      ],
      look: [
        'In **Memory per worker**, open the numbers: worker 0’s activations are now the smallest, but it still carries the optimizer state and the gathered outputs.',
        'Try `gpu0_bsz` = 2 (an even split, like DataParallel) and compare.',
      ],
      questions: [
        {
          q: 'Does BalancedDataParallel remove device 0’s extra work?',
          a: 'No. It only moves activations off device 0; the optimizer, the gathered outputs, the loss and the gradient sum stay there. DDP is the real fix: one process per device, each with its own optimizer.',
        },
      ],
      point: 'worker 0’s activations stayed below worker 1’s.',
    },
    zh: {
      title: 'BalancedDataParallel：给设备 0 更小的一片',
      intro: [
        '针对 DataParallel 设备 0 过重，常用的办法是 transformer-xl 的 `BalancedDataParallel(gpu0_bsz, model)`：设备 0 只处理全局批次中的 `gpu0_bsz` 个样本，其余设备平分剩下的。',
        '这里全局批次是 3 × 2 = 6，`gpu0_bsz` = 1：worker 0 只对 1 个样本做前向和反向，另外两个分担剩下的 5 个。',
      ],
      look: [
        '在 **每个 worker 的显存** 中展开数字：worker 0 的激活值现在最小，但它仍然承担优化器状态和收集来的输出。',
        '试试 `gpu0_bsz` = 2（与 DataParallel 一样均分），再比较。',
      ],
      questions: [
        {
          q: 'BalancedDataParallel 去掉了设备 0 的额外工作吗？',
          a: '没有。它只是把激活值从设备 0 挪走；优化器、收集来的输出、损失和梯度求和都还在设备 0。真正的解决办法是 DDP：每个设备一个进程，各有自己的优化器。',
        },
      ],
      point: 'worker 0 的激活值始终低于 worker 1。',
    },
  },
};
