// Lesson: several devices on one GPU. The same DDP run twice: each worker with its own device (the
// prepared run), then all workers sharing one device; the point is reached when both have finished,
// and the lesson shows rank 0's measured step split in each (its wall time and its wait in
// collectives), beside the H200 numbers of docs/placements.md.
import type { Lesson, LessonRun, StepSplit } from './lesson.ts';

const ms = (x: number) => x.toFixed(1);

function measured(r: LessonRun, lang: 'en' | 'zh'): string {
  const own = r.splits['own-devices'];
  const shared = r.splits['shared-device'];
  if (!own || !shared) return '';
  const ratio = (own.stepMs / shared.stepMs).toFixed(1);
  const split = (s: StepSplit) =>
    lang === 'en'
      ? `${ms(s.stepMs)} ms a step, ${ms(s.commMs)} ms of it waiting in collectives`
      : `每步 ${ms(s.stepMs)} 毫秒，其中 ${ms(s.commMs)} 毫秒在等待集合通信`;
  return lang === 'en'
    ? `Measured here: own devices ${split(own)}; one shared device ${split(shared)} (${ratio}x faster).`
    : `本页实测：各用设备时${split(own)}；共用一个设备时${split(shared)}（快 ${ratio} 倍）。`;
}

export const placements: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 2, trainLimit: 16, epochs: 1 },
  testLimit: 8,
  placement: 'own-devices',
  view: 'timeline',
  docs: ['ddp', 'ddpInternals'],
  reached: (r) =>
    r.state === 'done' && r.splits['own-devices'] !== undefined && r.splits['shared-device'] !== undefined,
  measured,
  text: {
    en: {
      title: 'Several devices on one GPU',
      intro: [
        'A page gets one GPU. With **each worker its own device**, every worker is a Web Worker with its own `GPUDevice`, as each rank of a cluster has its own GPU. But here the devices share one GPU, and every step pays a **host round trip**: each gradient bucket is read back from the GPU, summed round a ring between the workers in JavaScript, and uploaded again. The GPU also **switches between the devices**: each is a separate queue that the GPU serves in turns.',
        'With **workers share one device**, every worker runs in one Web Worker on one `GPUDevice` (each with its own buffers and memory counters), and DDP sums the buckets on the GPU itself: no readback, no host ring, no upload, the same bits. On an H200, at a global batch of 128, one worker trained 123,182 images/s; two workers with their own devices 23,836 (0.19x) and two sharing one device 85,681 (0.70x). A traced step of two workers with their own devices took 8.4 ms, of which the GPU computed 0.6 ms and the ranks waited 5.3 ms in communication.',
      ],
      look: [
        'Run the prepared run (each worker its own device). Then, under **Where the workers run**, choose **workers share one device** and run again. Sharing is offered for float32 DDP with two or more workers.',
        'In **Timeline**, compare the communication lane of the two runs; in **Rank 0’s log**, the images/s. The lesson shows rank 0’s measured step split of both runs when the second ends.',
      ],
      questions: [
        {
          q: 'Why is the same run slower with one device per worker on one GPU?',
          a: 'Each step moves every gradient off the GPU and back, sums it with JavaScript on the CPU, and waits for the slowest worker at every ring step; and the GPU time-slices the devices. One worker does none of that.',
        },
        {
          q: 'What does NCCL do instead on a machine with several GPUs?',
          a: 'Each rank has its own GPU and NCCL moves the buckets GPU to GPU over NVLink or PCIe, summing on the GPUs, while backward computes the next bucket: no host copy at all. That is why DDP scales there and not on one GPU.',
        },
        {
          q: 'Why not always share one device?',
          a: 'It teaches less: the ring, the buckets and the readback are what a cluster does. And today only float32 DDP sums on a shared device; the other modes move their state through the ring.',
        },
      ],
      point: 'Both placements ran.',
    },
    zh: {
      title: '一块 GPU 上的多个设备',
      intro: [
        '一个页面只有一块 GPU。选择 **每个 worker 各用一个设备** 时，每个 worker 是一个拥有自己 `GPUDevice` 的 Web Worker，就像集群中每个 rank 有自己的 GPU。但这里这些设备共用一块 GPU，每一步都要付出一次 **主机往返**：每个梯度桶从 GPU 读回，在 worker 之间的环上用 JavaScript 求和，再上传回去。GPU 还要 **在设备之间切换**：每个设备是一个独立的队列，GPU 轮流为它们服务。',
        '选择 **所有 worker 共用一个设备** 时，所有 worker 在同一个 Web Worker 中使用同一个 `GPUDevice`（各自有自己的缓冲区和内存计数），DDP 直接在 GPU 上对梯度桶求和：没有读回、没有主机上的环、没有上传，结果逐位相同。在 H200 上，全局批大小 128 时，一个 worker 每秒训练 123,182 张图像；两个各用设备的 worker 为 23,836（0.19 倍），两个共用一个设备的 worker 为 85,681（0.70 倍）。两个各用设备的 worker 的一步（有追踪）用时 8.4 毫秒，其中 GPU 计算 0.6 毫秒，各 rank 在通信中等待 5.3 毫秒。',
      ],
      look: [
        '先运行准备好的运行（每个 worker 各用一个设备）。然后在 **worker 运行在哪里** 中选择 **所有 worker 共用一个设备**，再运行一次。两个及以上 worker 的 float32 DDP 可以共用设备。',
        '在 **时间线** 中比较两次运行的通信泳道；在 **rank 0 的日志** 中比较每秒图像数。第二次运行结束后，本课会显示两次运行中 rank 0 实测的每步时间划分。',
      ],
      questions: [
        {
          q: '为什么在一块 GPU 上每个 worker 各用一个设备时，同样的运行更慢？',
          a: '每一步都要把所有梯度从 GPU 搬出再搬回，在 CPU 上用 JavaScript 求和，并在环的每一步等待最慢的 worker；GPU 还要在设备之间分时切换。一个 worker 时这些都不需要。',
        },
        {
          q: '在有多块 GPU 的机器上，NCCL 是怎么做的？',
          a: '每个 rank 有自己的 GPU，NCCL 通过 NVLink 或 PCIe 在 GPU 之间直接传递梯度桶并在 GPU 上求和，同时反向传播计算下一个桶：完全不经过主机。所以 DDP 在那里能扩展，而在一块 GPU 上不能。',
        },
        {
          q: '为什么不总是共用一个设备？',
          a: '那样能学到的更少：环、梯度桶和读回正是集群所做的事。而且目前只有 float32 DDP 能在共用设备上求和；其他模式通过环传递状态。',
        },
      ],
      point: '两种放置方式都运行完了。',
    },
  },
};
