// Lesson: ZeRO-1/2/3 shrink optimizer state, then gradients, then parameters to 1/W per rank.
import type { Lesson } from './lesson.ts';

/** SimpleCNN's parameters, bytes in fp32 (545,098 floats). */
const PARAM_BYTES = 545_098 * 4;
/** Slack for one bounded bucket or working buffer (cf. test/e2e/page.test.ts). */
const SLACK = 256 * 1024 + 64;

export const zero: Lesson = {
  settings: { mode: 'zero3', workers: 2, batchSize: 2, trainLimit: 8, epochs: 1, optimizer: 'adam', lr: 0.002 },
  testLimit: 8,
  view: 'memory',
  docs: ['zero', 'zeroPaper'],
  reached: (r) =>
    r.state === 'done' &&
    r.memory.length === 2 &&
    r.memory.every(
      (m) =>
        m.byCategory.optimizer.peak <= PARAM_BYTES + SLACK && m.byCategory.parameters.peak <= PARAM_BYTES / 2 + SLACK,
    ),
  text: {
    en: {
      title: 'ZeRO-1, 2 and 3: each rank keeps only its share',
      intro: [
        'DDP keeps everything on every rank: parameters, gradients and optimizer state (Adam: two more copies). ZeRO partitions them. Stage 1: each rank keeps and updates the optimizer state of 1/W of the parameters, then all-gathers them. Stage 2: gradients too (reduce-scatter instead of all-reduce). Stage 3: parameters too; each layer is all-gathered just before it is used and dropped after.',
        'This run is ZeRO-3 with Adam on 2 workers. DeepSpeed’s answer for a model whose states do not fit: change `stage` to 3.',
      ],
      look: [
        'In **Memory per worker**, parameters, gradients and optimizer state are each about half of DDP’s (DDP: 2.08 MiB of parameters, 4.16 MiB of Adam state).',
        'In **Compare**, run ZeRO-1, ZeRO-2 or ZeRO-3 against DDP; then try the **Calculator** with 7B parameters on 4 × 80 GB.',
      ],
      questions: [
        {
          q: 'What does ZeRO-3 pay for its memory saving?',
          a: 'Communication: parameters are all-gathered before each layer’s forward and again before its backward, about 1.5 times DDP’s traffic per step.',
        },
        {
          q: 'With fp16 and Adam (K = 12), what does ZeRO-1 save per rank at W = 4?',
          a: 'DDP keeps 16Ψ bytes; ZeRO-1 keeps 2Ψ + 2Ψ + 12Ψ/4 = 7Ψ, less than half.',
        },
      ],
      point: 'each worker held about half of the parameters and of the Adam state.',
    },
    zh: {
      title: 'ZeRO-1、2、3：每个 rank 只保留自己那一份',
      intro: [
        'DDP 在每个 rank 上保留全部内容：参数、梯度和优化器状态（Adam 还要两份）。ZeRO 把它们切分开。阶段 1：每个 rank 只保存并更新 1/W 参数的优化器状态，然后 all-gather 参数。阶段 2：再切分梯度（用 reduce-scatter 代替 all-reduce）。阶段 3：再切分参数；每一层在使用之前才 all-gather，用完即丢。',
        '这次运行是 2 个 worker 上使用 Adam 的 ZeRO-3。对模型状态放不下的模型，DeepSpeed 的办法是：把 `stage` 改成 3。',
      ],
      look: [
        '在 **每个 worker 的显存** 中，参数、梯度和优化器状态各约为 DDP 的一半（DDP：参数 2.08 MiB，Adam 状态 4.16 MiB）。',
        '在 **对比** 中，用 ZeRO-1、ZeRO-2 或 ZeRO-3 对比 DDP；然后在 **计算器** 中试试 4 × 80 GB 上的 7B 参数。',
      ],
      questions: [
        {
          q: 'ZeRO-3 为节省显存付出了什么？',
          a: '通信：每一层的前向之前、反向之前各要 all-gather 一次参数，每步的通信量约为 DDP 的 1.5 倍。',
        },
        {
          q: '使用 fp16 和 Adam（K = 12）、W = 4 时，ZeRO-1 每个 rank 省下多少？',
          a: 'DDP 保存 16Ψ 字节；ZeRO-1 保存 2Ψ + 2Ψ + 12Ψ/4 = 7Ψ，不到一半。',
        },
      ],
      point: '每个 worker 只持有约一半的参数和 Adam 状态。',
    },
  },
};
