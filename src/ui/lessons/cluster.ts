// Lesson: when to move to a cluster, and the torchrun script the run would become there.
import type { Lesson } from './lesson.ts';

export const cluster: Lesson = {
  settings: { mode: 'ddp', workers: 4, batchSize: 8, trainLimit: 256, epochs: 1 },
  testLimit: 16,
  life: { checkpoints: true, checkpointEvery: 0, keep: 2 },
  view: 'calc',
  docs: ['torchrun', 'ddpTutorial'],
  needs: ['torchrunExport'],
  // The run ended with a checkpoint stored and Export for torchrun turned it into the project.
  reached: (r) => r.state === 'done' && r.checkpoints >= 1 && r.exported,
  text: {
    en: {
      title: 'When to move to a cluster',
      intro: [
        'Everything on this page runs inside one browser: the workers share one GPU (or the CPU), so more workers do not make a step faster here. The page is for seeing what the ranks do; speed comes from real devices.',
        'Move to a cluster when the model states do not fit one device (the **Calculator** says so), or when one device is too slow for the data. There the same program runs under `torchrun --nproc_per_node=GPUS train.py`: one process per GPU, NCCL for the ring, `DistributedSampler` for the shards, rank 0 for logs and checkpoints.',
        'To continue this page’s run there: after the run, press **Export for torchrun** (in **Checkpoints and restarts**). The download is one `.tar` holding a `train.py` (the DDP tutorial’s script with this run’s sampler, optimizer and schedule, loading the run’s checkpoint), a README with the `torchrun` commands for one or several machines, and a `ds_config.json` for a ZeRO run. On a machine with Node, `webddp export-torchrun FOLDER --out project` does the same from the three downloaded checkpoint files.',
      ],
      look: [
        'In **Calculator**, type your model’s size, your GPU count and memory: does it fit with DDP? With ZeRO-2? ZeRO-3?',
        'After the run, **Export for torchrun** and read the project’s README: which settings carry over, and which `torchrun` command continues the run.',
      ],
      questions: [
        {
          q: 'A 7B model with Adam in fp16 on 4 × 80 GB: which stages fit?',
          a: 'DDP needs 16 × 7B = 112 GB per GPU: no. ZeRO-1: 4 × 7B + 12 × 7B / 4 = 49 GB; ZeRO-2: 2 × 7B + 14 × 7B / 4 = 38.5 GB; ZeRO-3: 16 × 7B / 4 = 28 GB; all three fit before activations.',
        },
        {
          q: 'What changes between this page and torchrun?',
          a: 'Processes instead of Web Workers, NCCL over NVLink or InfiniBand instead of MessagePorts, one real GPU per rank; the algorithm (sampler, buckets, ring, ZeRO partitions) stays the same.',
        },
      ],
      point: 'the run’s checkpoint is exported for torchrun: its train.py continues the run there.',
    },
    zh: {
      title: '什么时候该换到集群',
      intro: [
        '本页面上的一切都在一个浏览器里运行：各 worker 共享一个 GPU（或 CPU），所以在这里增加 worker 并不会让一步变快。本页面用于看清各 rank 在做什么；速度来自真正的设备。',
        '当模型状态放不进一个设备（**计算器** 会告诉你），或一个设备处理数据太慢时，就该换到集群。在那里同一个程序用 `torchrun --nproc_per_node=GPUS train.py` 运行：每个 GPU 一个进程，环用 NCCL，分片用 `DistributedSampler`，日志和检查点由 rank 0 负责。',
        '要在集群上继续本页面的运行：运行结束后，点 **导出为 torchrun 项目**（在 **检查点与重启** 中）。下载的是一个 `.tar`，里面有一个 `train.py`（DDP 教程的脚本，带有本次运行的采样器、优化器和学习率调度，并加载本次运行的检查点）、一个写明单机和多机 `torchrun` 命令的 README，以及 ZeRO 运行所用的 `ds_config.json`。在装有 Node 的机器上，`webddp export-torchrun 文件夹 --out project` 也能从下载的三个检查点文件做出同样的项目。',
      ],
      look: [
        '在 **计算器** 中输入你的模型大小、GPU 数量和显存：用 DDP 放得下吗？ZeRO-2 呢？ZeRO-3 呢？',
        '运行结束后点 **导出为 torchrun 项目**，读项目的 README：哪些设置被带过去，用哪条 `torchrun` 命令继续运行。',
      ],
      questions: [
        {
          q: '7B 模型、Adam、fp16、4 × 80 GB：哪些阶段放得下？',
          a: 'DDP 每个 GPU 需要 16 × 7B = 112 GB：放不下。ZeRO-1：4 × 7B + 12 × 7B / 4 = 49 GB；ZeRO-2：2 × 7B + 14 × 7B / 4 = 38.5 GB；ZeRO-3：16 × 7B / 4 = 28 GB；在计入激活值之前三者都放得下。',
        },
        {
          q: '从本页面到 torchrun，变的是什么？',
          a: '用进程代替 Web Worker，用 NVLink 或 InfiniBand 上的 NCCL 代替 MessagePort，每个 rank 一块真正的 GPU；算法（采样器、桶、环、ZeRO 切分）保持不变。',
        },
      ],
      point: '本次运行的检查点已导出为 torchrun 项目：它的 train.py 在那里继续运行。',
    },
  },
};
