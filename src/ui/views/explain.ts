// The short explanations beside the training, memory, compare and log views, each ending in links
// to the PyTorch / DeepSpeed documentation it summarises. (The ring, shard and sample views keep
// theirs next to their code.)
import { code, docLink, p } from '../dom.ts';

export interface Explanation {
  readonly title: string;
  readonly explanation: (Node | string)[];
  readonly links: HTMLAnchorElement[];
}

const DOCS = {
  ddpTutorial: 'https://pytorch.org/tutorials/intermediate/ddp_tutorial.html',
  ddp: 'https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html',
  dp: 'https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html',
  ddpNotDp:
    'https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel',
  balanced: 'https://github.com/kimiyoung/transformer-xl/blob/master/pytorch/utils/data_parallel.py',
  zero: 'https://www.deepspeed.ai/tutorials/zero/',
  zeroOptimizer: 'https://pytorch.org/docs/stable/distributed.optim.html',
  memory: 'https://pytorch.org/docs/stable/generated/torch.cuda.memory_allocated.html',
} as const;

export function trainingExplanation(): Explanation {
  return {
    title: 'Training',
    explanation: [
      p(
        'Every worker computes the loss of ',
        code('SimpleCNN'),
        ' on its own batch; the curve is rank 0’s, as the tutorial prints it. ',
        'In DDP the ranks’ losses differ, but they all apply the same averaged gradient, so their parameters stay identical (the run checks this).',
      ),
      p(
        'Test loss and accuracy are measured on the test split after each epoch. Images/s counts the samples of all workers in a step over the step’s wall time.',
      ),
    ],
    links: [docLink(DOCS.ddpTutorial, 'DDP tutorial'), docLink(DOCS.ddp, 'DistributedDataParallel')],
  };
}

export function memoryExplanation(): Explanation {
  return {
    title: 'Memory per worker',
    explanation: [
      p(
        'Each worker counts every GPU buffer it creates, like ',
        code('torch.cuda.memory_allocated()'),
        ' and ',
        code('max_memory_allocated()'),
        ' (the light bar).',
      ),
      p(
        code('DataParallel'),
        ' is one process: cuda:0 holds the model, scatters the batch, gathers every output back, computes the loss and owns the only optimizer state. ',
        'So device 0 fills up first while the others wait. ',
        code('BalancedDataParallel'),
        ' gives device 0 a smaller slice (',
        code('gpu0_bsz'),
        ') to make room; the extra jobs stay.',
      ),
      p(
        code('DDP'),
        ' runs one process per device, each a full replica with its own optimizer. After backward, gradients are ',
        'averaged by all-reduce, so every replica takes the same step: memory is even.',
      ),
      p(
        'ZeRO removes the copies DDP keeps: stage 1 partitions the optimizer state (each rank updates 1/W of the parameters, then all-gathers them); stage 2 also partitions the gradients (reduce-scatter instead of all-reduce; backward fills one small bucket at a time); stage 3 also partitions the parameters: each layer is all-gathered into a small working buffer just before its forward, and again before its backward, then dropped.',
      ),
    ],
    links: [
      docLink(DOCS.dp, 'DataParallel'),
      docLink(DOCS.ddpNotDp, 'why DDP over DP'),
      docLink(DOCS.balanced, 'BalancedDataParallel'),
      docLink(DOCS.zero, 'DeepSpeed ZeRO'),
      docLink(DOCS.zeroOptimizer, 'ZeroRedundancyOptimizer'),
      docLink(DOCS.memory, 'memory_allocated'),
    ],
  };
}

export function compareExplanation(): Explanation {
  return {
    title: 'Compare two modes',
    explanation: [
      p(
        'Trains the settings on the left for a few steps in each mode, one after the other, and puts every worker’s measured memory side by side on one scale.',
      ),
      p(
        'DataParallel vs DDP at 4 workers reproduces, in miniature, the famous table of DataParallel on 4 GPUs (38, 22, 21, 20 GB): worker 0 carries the optimizer and the gathered outputs.',
      ),
      p(
        'ZeRO-1, ZeRO-2 and ZeRO-3 against DDP show the optimizer state, then the gradients, then the parameters shrinking to about 1/W per worker.',
      ),
    ],
    links: [docLink(DOCS.ddpNotDp, 'DDP instead of DataParallel'), docLink(DOCS.zero, 'DeepSpeed ZeRO')],
  };
}

export function logExplanation(): Explanation {
  return {
    title: 'Rank 0’s log',
    explanation: [
      p(
        'What the tutorial’s ',
        code('if rank == 0: print(...)'),
        ' shows: one line every few batches, one per epoch. Only rank 0 prints, so the log is not repeated W times.',
      ),
      p('“check” lines compare a SHA-256 of every rank’s parameters: DDP replicas must stay bit-identical.'),
    ],
    links: [docLink(DOCS.ddpTutorial, 'DDP tutorial')],
  };
}
