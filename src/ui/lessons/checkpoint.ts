// Lesson: rank-0 checkpoints behind a barrier, and resuming from one exactly.
import type { Lesson } from './lesson.ts';

export const checkpoint: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 4, trainLimit: 32, epochs: 2, optimizer: 'adam', lr: 0.002 },
  testLimit: 16,
  life: { checkpoints: true, checkpointEvery: 2, keep: 3 },
  view: 'log',
  docs: ['checkpointTutorial', 'ddpTutorial'],
  needs: ['checkpoints'],
  // The run saved checkpoints as it went, or a resumed run continued one to the end.
  reached: (r) => r.state === 'done' && (r.checkpoints >= 2 || r.resumed),
  text: {
    en: {
      title: 'Checkpoints: rank 0 saves, everyone waits, and a run resumes',
      intro: [
        'In DDP every rank holds the same parameters, so only rank 0 writes the checkpoint (`if rank == 0: torch.save(...)`), and then `dist.barrier()` makes every rank wait until it is written, so none reads a half-written file or races ahead.',
        'This run saves one every 2 steps and at each epoch’s end (**Checkpoints and restarts** in the settings) into this browser’s IndexedDB: the model under its `state_dict` names, the optimizer’s state under `torch.optim`’s names, and where the run is (epoch, step, the sampler’s epoch, the augmentation stream, the schedule’s position). The new one is written whole first; one swap of a pointer then makes it the current one, so a failed write leaves the previous checkpoint as it was.',
        'Stop the run midway (it saves where it stopped), then press **Resume from the last checkpoint**: the run continues bit for bit as if it had never stopped. **Download the last checkpoint** gives the three files that `webddp train --resume` reads.',
      ],
      look: [
        'In **Rank 0’s log**, a `checkpoint:` line per save, with the global step and where it went; after a resume, the `resuming` line and the steps continuing from there.',
        'Under **Checkpoints and restarts**, the last checkpoint: its step, epoch and size.',
      ],
      questions: [
        {
          q: 'Why must the other ranks wait at a barrier after rank 0 saves?',
          a: 'A rank that loads (or exits) before the write has finished would read a partial file; the barrier orders “rank 0 has saved” before anything that depends on it.',
        },
        {
          q: 'Saving only `model.state_dict()` and loading it again does not continue the same run. What else must a checkpoint hold?',
          a: 'The optimizer’s state (momentum, or Adam’s moments and step), the epoch and the step within it (with `set_epoch`, the sampler’s order), the random state of the augmentation, and the learning-rate schedule’s position. Without them the resumed run takes different steps.',
        },
      ],
      point: 'rank 0 saved checkpoints during the run; Resume continues the last one exactly.',
    },
    zh: {
      title: '检查点：rank 0 保存，所有人等待，训练可以恢复',
      intro: [
        '在 DDP 中每个 rank 的参数都相同，所以只由 rank 0 写检查点（`if rank == 0: torch.save(...)`），然后 `dist.barrier()` 让每个 rank 等到它写完，这样就没有 rank 会读到写了一半的文件或抢先往下跑。',
        '这次运行每 2 步以及每轮结束时（设置中的 **检查点与重启**）把检查点保存到本浏览器的 IndexedDB：按 `state_dict` 名称保存的模型、按 `torch.optim` 名称保存的优化器状态，以及训练进度（轮次、步数、采样器的 epoch、数据增强的随机流、学习率调度的位置）。新检查点先完整写入，再通过一次指针切换成为当前检查点，所以写入失败时上一个检查点保持原样。',
        '在中途停止运行（停止的地方会保存检查点），然后按 **从最后一个检查点恢复**：训练逐位一致地继续，就像从未停过。**下载最后一个检查点** 给出 `webddp train --resume` 读取的三个文件。',
      ],
      look: [
        '在 **rank 0 的日志** 中，每次保存一行 `检查点：`，写明全局步数和保存位置；恢复之后是 `从 … 恢复` 一行，以及从那里继续的各步。',
        '在 **检查点与重启** 下：最后一个检查点的步数、轮次和大小。',
      ],
      questions: [
        {
          q: '为什么 rank 0 保存后，其他 rank 必须在屏障处等待？',
          a: '在写入完成之前就加载（或退出）的 rank 会读到不完整的文件；屏障保证“rank 0 已保存”发生在所有依赖它的操作之前。',
        },
        {
          q: '只保存 `model.state_dict()` 再加载，并不能继续同一次训练。检查点还必须包含什么？',
          a: '优化器状态（动量，或 Adam 的一阶、二阶矩和步数）、当前轮次和轮内步数（配合 `set_epoch` 决定采样器的顺序）、数据增强的随机状态，以及学习率调度的位置。缺了它们，恢复后的训练会走不同的步子。',
        },
      ],
      point: 'rank 0 在运行中保存了检查点；“恢复”会逐位一致地继续最后一个。',
    },
  },
};
