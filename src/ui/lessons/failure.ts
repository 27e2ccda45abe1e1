// Lesson: a worker fails; the run stops naming the rank (and torchrun would restart it).
import type { Lesson } from './lesson.ts';

export const failure: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 2, trainLimit: 32, epochs: 1 },
  testLimit: 8,
  fault: '1:1:throw',
  view: 'log',
  docs: ['torchrun'],
  partly: ['restarts'],
  reached: (r) => r.state === 'failed' && /rank 1/.test(r.status),
  text: {
    en: {
      title: 'A worker fails: stop cleanly, then restart',
      intro: [
        'This run makes rank 1 throw at its step 1. In a collective, the other ranks would wait for it forever; instead the whole group is aborted and the run stops with an error that names the rank and the step, so no rank goes on with half-reduced gradients.',
        '`torchrun --max-restarts=N` goes one step further: when a worker dies it stops the others and starts all of them again, and a script that saves checkpoints resumes from the last one.',
      ],
      look: [
        'The status under the buttons and the last line of **Rank 0’s log**: which rank failed, at which step, and why.',
      ],
      questions: [
        {
          q: 'Why stop every rank when only one failed?',
          a: 'DDP’s collectives need every rank: the survivors would block in the next all-reduce. Aborting the group turns a hang into an error that says where it came from.',
        },
        {
          q: 'What does a restart lose?',
          a: 'Everything since the last checkpoint: torchrun restarts the processes from the start of the script, and only a saved checkpoint carries progress across.',
        },
      ],
      point: 'the run stopped with an error naming rank 1.',
    },
    zh: {
      title: '一个 worker 出故障：干净地停下，然后重启',
      intro: [
        '这次运行让 rank 1 在它的第 1 步抛出错误。在集合通信中，其他 rank 本会永远等它；这里整个进程组被中止，训练停下并给出指明 rank 和步数的错误，因此没有 rank 会带着只归约了一半的梯度继续。',
        '`torchrun --max-restarts=N` 更进一步：一个 worker 死掉时，它停止其他 worker 并把所有 worker 重新启动，会保存检查点的脚本则从最后一个检查点恢复。',
      ],
      look: ['按钮下方的状态和 **rank 0 的日志** 的最后一行：哪个 rank、在哪一步、因为什么失败。'],
      questions: [
        {
          q: '只有一个 rank 失败，为什么要停掉所有 rank？',
          a: 'DDP 的集合通信需要每个 rank 参与：幸存的 rank 会阻塞在下一次 all-reduce 上。中止整个进程组，把卡死变成一个指明来源的错误。',
        },
        {
          q: '一次重启会丢失什么？',
          a: '上一个检查点之后的一切：torchrun 从脚本开头重新启动进程，只有保存下来的检查点能把进度带过去。',
        },
      ],
      point: '训练停下，错误指明了 rank 1。',
    },
  },
};
