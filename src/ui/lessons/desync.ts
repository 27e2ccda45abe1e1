// Lesson: a collective desync. Rank 1 leaves out its all-reduce of gradient bucket 0 at step 1 (the
// fault skip-bucket); with the collectives' fingerprints compared before each one runs (the CLI's
// --debug-collectives, PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL) the run stops at the first
// mismatch, naming both sides, and the timeline shows every rank's flight recorder. The learner
// works out which rank skipped which bucket; the check reads both sides from the engine's error.
import type { Lang } from '../i18n/index.ts';
import type { Lesson } from './lesson.ts';

/** One side of a desync: the collective a rank was about to run. */
export interface DesyncSide {
  readonly rank: number;
  readonly op: string;
  readonly seq: number;
  /** The gradient bucket it carries (null: none). */
  readonly bucket: number | null;
}

const SIDE = String.raw`rank (\d+) is about to run (\w+) #(\d+) \(([^)]*)\)`;
const DESYNC = new RegExp(String.raw`collective desync \([^)]*\): ${SIDE} but ${SIDE}`);

/** Both sides of a collective desync in an engine error (CollectiveDesyncError's words), else null. */
export function desyncSides(message: string): readonly [DesyncSide, DesyncSide] | null {
  const m = DESYNC.exec(message);
  if (!m) return null;
  const side = (i: number): DesyncSide => {
    const bucket = /(?:^|, )bucket (\d+)(?:,|$)/.exec(m[i + 3] ?? '');
    return { rank: Number(m[i]), op: m[i + 1] ?? '', seq: Number(m[i + 2]), bucket: bucket ? Number(bucket[1]) : null };
  };
  return [side(1), side(5)];
}

/** The rank the lesson's fault makes skip bucket 0, and the step. */
const SKIPPER = 1;
const STEP = 1;

/**
 * The two sides as the lesson expects them: the same collective number, the skipping rank already
 * on a later bucket while the other is on bucket 0. Null when the error does not name them so.
 */
function found(failure: string | null): { skipper: DesyncSide; other: DesyncSide } | null {
  const sides = failure ? desyncSides(failure) : null;
  if (!sides) return null;
  const skipper = sides.find((s) => s.rank === SKIPPER);
  const other = sides.find((s) => s.rank !== SKIPPER);
  if (!skipper || !other || skipper.seq !== other.seq) return null;
  return other.bucket === 0 && skipper.bucket !== null && skipper.bucket > 0 ? { skipper, other } : null;
}

function measured(failure: string | null, lang: Lang): string {
  const f = found(failure);
  if (!f) return '';
  const { skipper: s, other: o } = f;
  return lang === 'en'
    ? `The error named both sides of ${s.op} #${s.seq}: rank ${s.rank} was about to reduce bucket ${s.bucket}, rank ${o.rank} bucket ${o.bucket}.`
    : `错误指明了 ${s.op} #${s.seq} 的双方：rank ${s.rank} 正要归约桶 ${s.bucket}，rank ${o.rank} 正要归约桶 ${o.bucket}。`;
}

export const desync: Lesson = {
  settings: { mode: 'ddp', workers: 2, batchSize: 2, trainLimit: 16, epochs: 1, bucketCapMB: 1 },
  testLimit: 8,
  fault: `${SKIPPER}:${STEP}:skip-bucket`,
  debugCollectives: true,
  life: { checkpoints: false, maxRestarts: 0 },
  view: 'timeline',
  docs: ['distDebug', 'ddpNotes'],
  reached: (r) => r.state === 'failed' && found(r.failure) !== null,
  measured: (r, lang) => measured(r.failure, lang),
  text: {
    en: {
      title: 'A desync: one rank skips a bucket, and the flight recorder finds it',
      intro: [
        'DDP’s ranks must run the same collectives in the same order: the k-th all-reduce of every rank is one collective, and each rank adds its own gradient bucket into it. If one rank leaves a bucket out, its next all-reduce is paired with the other ranks’ previous one: a hang, or two different buckets silently summed into each other.',
        'This run makes one rank leave out one of its all-reduces at step 1 (which rank and which bucket is for you to find). It runs with the check PyTorch turns on with `TORCH_DISTRIBUTED_DEBUG=DETAIL` (the CLI’s `--debug-collectives`): before each collective, every rank’s fingerprint (op, bucket, dtype, size, step) is compared, and the run stops at the first mismatch, naming both sides.',
        'Every rank also keeps a **flight recorder** of the collectives it entered; when the run fails, the page gathers them all.',
      ],
      look: [
        'The status line and **Rank 0’s log**: the error says which rank was about to run which all-reduce (bucket, size, step) and what the other rank was about to run instead.',
        'In **Timeline**, under the lanes: every rank’s flight recorder, its last completed collective and whether one is behind; the collectives of the failed step are in each rank’s comm lane.',
      ],
      questions: [
        {
          q: 'Which rank skipped an all-reduce, and of which bucket?',
          a: 'Rank 1 skipped bucket 0 at step 1. The error shows both sides of the same collective number: rank 1 was already about to reduce bucket 1 while rank 0 was about to reduce bucket 0. Buckets are reduced in order (0 first: the last layers’ gradients are ready first), so the rank that is one bucket ahead is the one that left one out.',
        },
        {
          q: 'Without the fingerprint check, what would have happened?',
          a: 'The link would pair rank 1’s bucket 1 with rank 0’s bucket 0. Here their sizes differ, so the transfer itself disagrees or a rank waits until the step timeout; two buckets of equal size would be summed into each other without any error, and the replicas would drift apart until the parameter check caught it.',
        },
      ],
      point: 'the run stopped at the desync, and the error named both sides.',
    },
    zh: {
      title: '失步：一个 rank 跳过了一个桶，飞行记录器把它找出来',
      intro: [
        'DDP 的各个 rank 必须以相同的顺序运行相同的集合通信：每个 rank 的第 k 次 all-reduce 是同一个集合通信，各 rank 把自己的梯度桶加进去。如果某个 rank 漏掉一个桶，它的下一次 all-reduce 就会与其他 rank 的上一次配对：要么卡死，要么两个不同的桶被悄悄地加在一起。',
        '这次运行让一个 rank 在第 1 步漏掉它的一次 all-reduce（是哪个 rank、哪个桶，留给你来找）。运行时打开了 PyTorch 用 `TORCH_DISTRIBUTED_DEBUG=DETAIL` 打开的检查（CLI 的 `--debug-collectives`）：每次集合通信之前，比较每个 rank 的指纹（操作、桶、数据类型、大小、步数），在第一次不一致时停下，并指明双方。',
        '每个 rank 还有一个 **飞行记录器**，记录它进入过的集合通信；运行失败时，页面把它们全部收集起来。',
      ],
      look: [
        '状态行和 **rank 0 的日志**：错误说明哪个 rank 正要运行哪次 all-reduce（桶、大小、步数），以及另一个 rank 正要运行的是什么。',
        '在 **时间线** 中，各行下方：每个 rank 的飞行记录器、它最后完成的集合通信，以及是否有 rank 落后；失败那一步的集合通信画在各 rank 的通信行里。',
      ],
      questions: [
        {
          q: '哪个 rank 跳过了一次 all-reduce？跳过的是哪个桶？',
          a: 'rank 1 在第 1 步跳过了桶 0。错误给出了同一个集合通信编号的双方：rank 1 已经要归约桶 1，而 rank 0 正要归约桶 0。桶是按顺序归约的（桶 0 最先：最后几层的梯度最先就绪），所以领先一个桶的 rank 就是漏掉一个桶的那个。',
        },
        {
          q: '如果没有指纹检查，会发生什么？',
          a: '链路会把 rank 1 的桶 1 与 rank 0 的桶 0 配对。这里两者大小不同，所以传输本身会不一致，或者某个 rank 一直等到步超时；若两个桶大小相同，它们会被悄悄地加在一起而没有任何错误，各副本逐渐分离，直到参数检查发现。',
        },
      ],
      point: '运行在失步处停下，错误指明了双方。',
    },
  },
};
