// Lesson: rank-0 checkpoints behind a barrier, and resuming from one.
import type { Lesson } from './lesson.ts';

export const checkpoint: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 4, trainLimit: 64, epochs: 2 },
  testLimit: 16,
  view: 'log',
  docs: ['checkpointTutorial', 'ddpTutorial'],
  needs: ['checkpoints'],
  reached: () => false,
  text: {
    en: {
      title: 'Checkpoints: rank 0 saves, everyone waits, and a run resumes',
      intro: [
        'In DDP every rank holds the same parameters, so only rank 0 writes the checkpoint (`if rank == 0: torch.save(model.module.state_dict(), path)`), and then `dist.barrier()` makes every rank wait until the file exists, so none reads a half-written file or races ahead.',
        'To resume, every rank loads the same file with `map_location` for its own device before wrapping the model in DDP, and training continues from the saved epoch.',
        'Saving and resuming by hand already works on this page: when a run ends, **Model checkpoint** downloads the model as a safetensors `state_dict`, and “Start from” begins the next run from that file.',
      ],
      look: [
        'In **Rank 0’s log**, a line per checkpoint and the barrier after it; then the resumed run starting from the saved epoch.',
      ],
      questions: [
        {
          q: 'Why must the other ranks wait at a barrier after rank 0 saves?',
          a: 'A rank that loads (or exits) before the write has finished would read a partial file; the barrier orders “rank 0 has saved” before anything that depends on it.',
        },
        {
          q: 'Why only rank 0?',
          a: 'All ranks hold identical parameters in DDP; W ranks writing the same bytes to one path only adds I/O and races.',
        },
      ],
      point: 'the run wrote checkpoints and a second run resumed from one.',
    },
    zh: {
      title: '检查点：rank 0 保存，所有人等待，训练可以恢复',
      intro: [
        '在 DDP 中每个 rank 的参数都相同，所以只由 rank 0 写检查点（`if rank == 0: torch.save(model.module.state_dict(), path)`），然后 `dist.barrier()` 让每个 rank 等到文件写完，这样就没有 rank 会读到写了一半的文件或抢先往下跑。',
        '恢复时，每个 rank 在用 DDP 包装模型之前，用适合自己设备的 `map_location` 加载同一个文件，训练从保存的那一轮继续。',
        '手动保存和恢复在本页面上已经可用：一次运行结束后，**模型检查点** 会把模型下载为 safetensors 格式的 `state_dict`，“从此文件开始”则让下一次运行从该文件开始。',
      ],
      look: ['在 **rank 0 的日志** 中，每个检查点一行，之后是屏障；然后是从保存的那一轮开始的恢复运行。'],
      questions: [
        {
          q: '为什么 rank 0 保存后，其他 rank 必须在屏障处等待？',
          a: '在写入完成之前就加载（或退出）的 rank 会读到不完整的文件；屏障保证“rank 0 已保存”发生在所有依赖它的操作之前。',
        },
        {
          q: '为什么只让 rank 0 写？',
          a: 'DDP 中所有 rank 的参数完全相同；让 W 个 rank 向同一路径写同样的字节只会增加 I/O 和竞争。',
        },
      ],
      point: '运行写出了检查点，第二次运行从其中一个恢复。',
    },
  },
};
