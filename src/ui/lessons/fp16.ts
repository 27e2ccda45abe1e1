// Lesson: fp16 mixed precision with dynamic loss scaling, as DeepSpeed's fp16 section does it.
import type { Lesson } from './lesson.ts';

export const fp16: Lesson = {
  settings: {
    mode: 'ddp',
    workers: 2,
    batchSize: 2,
    trainLimit: 16,
    epochs: 1,
    fp16: true,
    optimizer: 'adam',
    lr: 0.002,
  },
  testLimit: 8,
  view: 'log',
  docs: ['dsFp16', 'amp'],
  needs: ['fp16'],
  // Every step ran with a loss scale (DeepSpeed's dynamic scaler starts at 2^16).
  reached: (r) =>
    r.state === 'done' && r.lossScales.length > 0 && r.lossScales.every((s) => Number.isFinite(s) && s >= 1),
  text: {
    en: {
      title: 'fp16 with loss scaling',
      intro: [
        'A typical DeepSpeed `ds_config.json` turns on `"fp16": { "enabled": true, "loss_scale": 0 }`: parameters, activations and gradients are stored in 16 bits (half their memory and half the all-reduce bytes), while an fp32 master copy of the weights and the optimizer state make the update.',
        'fp16 cannot hold small gradients: many would round to zero. So the loss is multiplied by a scale (2^16 to start) before backward and the gradients divided by it before the step. `loss_scale: 0` means dynamic: on an overflow (inf or NaN) the step is skipped and the scale halved (after `hysteresis` overflows); after `loss_scale_window` good steps it doubles.',
      ],
      look: [
        'In **Rank 0’s log**, the loss scale of each logged step and any overflow lines, word for word as DeepSpeed logs them; in **Memory**, the fp16 parameters and gradients beside the fp32 master copy in the optimizer state, and smaller activations: the tensors the forward saves for backward are halves (the gradients flowing back through the layers stay float32 here).',
        'fp16 runs in every mode here: DDP and ZeRO-1/2 reduce fp16 gradients, ZeRO-3 also all-gathers each layer’s fp16 parameters, and DataParallel’s device 0 keeps the fp32 master and the loss scale while its replicas get fp16 parameters and send fp16 gradients.',
      ],
      questions: [
        {
          q: 'Why keep an fp32 copy of the weights?',
          a: 'An update lr × gradient is often far below fp16’s resolution near the weight’s value; added in fp16 it would vanish. The fp32 master weights accumulate the small updates.',
        },
        {
          q: 'What does a skipped step cost?',
          a: 'One batch of compute and no update; the scheduler does not advance either. With a good scale overflows are rare.',
        },
      ],
      point: 'every step ran with a loss scale.',
    },
    zh: {
      title: '带损失缩放的 fp16',
      intro: [
        '典型的 DeepSpeed `ds_config.json` 打开了 `"fp16": { "enabled": true, "loss_scale": 0 }`：参数、激活值和梯度以 16 位存储（它们的显存减半，all-reduce 的字节数也减半），而由 fp32 的主权重副本和优化器状态完成更新。',
        'fp16 装不下很小的梯度：很多会被舍入为零。所以反向传播之前把损失乘以一个缩放因子（初始为 2^16），更新之前再把梯度除以它。`loss_scale: 0` 表示动态缩放：出现溢出（inf 或 NaN）时跳过这一步并把缩放减半（在 `hysteresis` 次溢出之后）；连续 `loss_scale_window` 步正常后再翻倍。',
      ],
      look: [
        '在 **rank 0 的日志** 中，可以看到每个记录步骤的损失缩放值和所有溢出信息，与 DeepSpeed 的日志逐字相同；在 **显存** 中，fp16 参数和梯度与优化器状态中的 fp32 主权重并列，激活值也变小了：前向为反向保存的张量以半精度存储（在各层间反向传播的梯度这里仍是 fp32）。',
        '这里 fp16 可在所有模式中运行：DDP 和 ZeRO-1/2 归约 fp16 梯度，ZeRO-3 还会 all-gather 每层的 fp16 参数；DataParallel 的 device 0 保存 fp32 主权重和损失缩放，各副本接收 fp16 参数并发回 fp16 梯度。',
      ],
      questions: [
        {
          q: '为什么要保留一份 fp32 权重？',
          a: '更新量 lr × 梯度往往远小于权重数值附近 fp16 的分辨率；用 fp16 相加会直接消失。fp32 主权重能把这些小更新累积起来。',
        },
        {
          q: '跳过一步的代价是什么？',
          a: '浪费一个批次的计算、不做更新；学习率调度也不前进。缩放因子合适时溢出很少发生。',
        },
      ],
      point: '每一步都带着损失缩放运行。',
    },
  },
};
