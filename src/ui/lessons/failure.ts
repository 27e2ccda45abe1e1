// Lesson: a worker fails; torchrun-style recovery restarts every worker from the last checkpoint.
import type { Lesson } from './lesson.ts';

export const failure: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 2, trainLimit: 16, epochs: 1 },
  testLimit: 8,
  fault: '1:3:throw',
  life: { checkpoints: true, checkpointEvery: 2, maxRestarts: 1 },
  view: 'log',
  docs: ['torchrun'],
  needs: ['restarts'],
  reached: (r) => r.state === 'done' && r.restarts.length === 1 && r.restarts[0] === 1,
  text: {
    en: {
      title: 'A worker fails: stop cleanly, then restart from the last checkpoint',
      intro: [
        'This run makes rank 1 throw at its step 3. In a collective, the other ranks would wait for it forever; instead the whole group is aborted, with an error that names the rank and the step, so no rank goes on with half-reduced gradients.',
        'Then the page does what `torchrun --max-restarts=1` does: it closes every worker, starts fresh ones, and they load the last checkpoint (this run saves one every 2 steps) and continue. The step lost since that checkpoint is trained again, and the run ends with exactly the parameters it would have had without the failure.',
        'Set **Max restarts** to 0 and run again: the first failure then ends the run, naming rank 1.',
      ],
      look: [
        'In **Rank 0’s log**: the `checkpoint:` lines, then `rank 1 failed`, the restart (which attempt, from which global step), and the steps continuing to the end.',
      ],
      questions: [
        {
          q: 'Why stop every rank when only one failed?',
          a: 'DDP’s collectives need every rank: the survivors would block in the next all-reduce. Aborting the group turns a hang into an error that says where it came from, and a restart needs all ranks at the same step anyway.',
        },
        {
          q: 'What does a restart lose?',
          a: 'Everything since the last checkpoint: torchrun restarts the processes from the start of the script, and only a saved checkpoint carries progress across. With no checkpoint yet, the run starts again from its initial state.',
        },
      ],
      point: 'rank 1 failed, the workers restarted from the last checkpoint, and the run finished.',
    },
    zh: {
      title: '一个 worker 出故障：干净地停下，再从最后一个检查点重启',
      intro: [
        '这次运行让 rank 1 在它的第 3 步抛出错误。在集合通信中，其他 rank 本会永远等它；这里整个进程组被中止，并给出指明 rank 和步数的错误，因此没有 rank 会带着只归约了一半的梯度继续。',
        '接着页面做 `torchrun --max-restarts=1` 所做的事：关闭所有 worker，启动新的 worker，它们加载最后一个检查点（本次运行每 2 步保存一次）并继续。从该检查点之后丢失的那一步会重新训练，运行结束时的参数与没有发生故障时完全相同。',
        '把 **最大重启次数** 设为 0 再运行一次：第一次故障就会结束运行，并指明 rank 1。',
      ],
      look: [
        '在 **rank 0 的日志** 中：几行 `检查点：`，然后是 `rank 1 失败`、重启（第几次，从全局第几步开始），以及一直继续到结束的各步。',
      ],
      questions: [
        {
          q: '只有一个 rank 失败，为什么要停掉所有 rank？',
          a: 'DDP 的集合通信需要每个 rank 参与：幸存的 rank 会阻塞在下一次 all-reduce 上。中止整个进程组，把卡死变成一个指明来源的错误；而且重启本来就需要所有 rank 处在同一步。',
        },
        {
          q: '一次重启会丢失什么？',
          a: '上一个检查点之后的一切：torchrun 从脚本开头重新启动进程，只有保存下来的检查点能把进度带过去。还没有检查点时，训练从初始状态重新开始。',
        },
      ],
      point: 'rank 1 失败，worker 从最后一个检查点重启，训练完成。',
    },
  },
};
