// fp16 against fp32 on the built-in synthetic dataset: the same `webddp train` run (same seed,
// data, model and optimizer) with and without --fp16, alternating so that load from other
// processes weighs on both alike. Prints, per precision, the final test accuracy and loss, the
// train loss, the images/s of every epoch (the last epoch's is the steady one), the steps skipped
// on overflow, and rank 0's peak memory by category.
//
//   node bench/fp16.mjs                          # DDP, 2 workers, batch 16, 1024 records, 2 epochs, 2 rounds
//   node bench/fp16.mjs --workers 1 --mode ddp --batch-size 32 --train-limit 2048 --epochs 2 --rounds 1
//   node bench/fp16.mjs --json out.json          # also write every run's numbers
//
// Extra arguments after `--` go to every `webddp train` (e.g. -- --adapter gpu --optimizer adam).
/* global console, process */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workers: { type: 'string', default: '2' },
    mode: { type: 'string', default: 'ddp' },
    'batch-size': { type: 'string', default: '16' },
    'train-limit': { type: 'string', default: '1024' },
    'test-limit': { type: 'string', default: '512' },
    epochs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    lr: { type: 'string', default: '0.02' },
    json: { type: 'string' },
  },
});

const store = join(mkdtempSync(join(tmpdir(), 'webddp-fp16-bench-')), 'store');
const base = [
  'bin/webddp.mjs',
  'train',
  '--store',
  store,
  '--json',
  '--log-every',
  '1',
  '--check-every',
  '0',
  '--workers',
  values.workers,
  '--mode',
  values.mode,
  '--batch-size',
  values['batch-size'],
  '--train-limit',
  values['train-limit'],
  '--test-limit',
  values['test-limit'],
  '--epochs',
  values.epochs,
  '--lr',
  values.lr,
  ...positionals,
];

/**
 * @typedef {{ type: string, test_accuracy: number, test_loss: number, train_loss: number, images_per_s: number,
 *   skipped?: boolean, loss_scale?: number, workers: { by_category: Record<string, { peak: number }> }[] }} Line
 * @typedef {{ fp16: boolean, testAccuracy: number, testLoss: number, trainLoss: number, imagesPerSec: number[],
 *   skipped: number, lossScale: number | null, memory: Record<string, number> }} Run
 */

/** @param {boolean} fp16 @returns {Run} */
function run(fp16) {
  const r = spawnSync(process.execPath, [...base, ...(fp16 ? ['--fp16'] : [])], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`webddp train${fp16 ? ' --fp16' : ''} failed:\n${r.stderr}`);
  const lines = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      // JSON.parse is `any` to the linter here (no JSDoc cast survives in .mjs): each line is a Line.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
      const line = /** @type {Line} */ (JSON.parse(l));
      return line;
    });
  const epochs = lines.filter((l) => l.type === 'epoch');
  const last = epochs.at(-1);
  if (!last) throw new Error('the run printed no epoch line');
  return {
    fp16,
    testAccuracy: last.test_accuracy,
    testLoss: last.test_loss,
    trainLoss: last.train_loss,
    imagesPerSec: epochs.map((e) => e.images_per_s),
    skipped: lines.filter((l) => l.type === 'step' && l.skipped === true).length,
    lossScale: lines.filter((l) => l.type === 'step').at(-1)?.loss_scale ?? null,
    memory: Object.fromEntries(Object.entries(last.workers[0]?.by_category ?? {}).map(([k, v]) => [k, v.peak])),
  };
}

/** @type {Run[]} */
const runs = [];
for (let i = 0; i < Number(values.rounds); i++) for (const fp16 of [false, true]) runs.push(run(fp16));

/** @param {unknown} x @param {number} d */
const fmt = (x, d = 4) => (typeof x === 'number' ? x.toFixed(d) : String(x));
console.log(
  `webddp train ${base
    .slice(2)
    .filter((a, i, all) => a !== '--store' && all[i - 1] !== '--store')
    .join(' ')}  (+ --fp16), ${values.rounds} round(s), alternating`,
);
console.log('precision | test acc | test loss | train loss | images/s per epoch | skipped | final loss scale');
for (const r of runs)
  console.log(
    `${r.fp16 ? 'fp16' : 'fp32'} | ${fmt(r.testAccuracy)} | ${fmt(r.testLoss)} | ${fmt(r.trainLoss)} | ` +
      `${r.imagesPerSec.map((x) => x.toFixed(1)).join(', ')} | ${r.skipped} | ${r.lossScale ?? '-'}`,
  );
const cats = Object.keys(runs[0]?.memory ?? {});
console.log(`rank 0 peak bytes | ${cats.join(' | ')}`);
for (const fp16 of [false, true]) {
  const r = runs.find((x) => x.fp16 === fp16);
  console.log(`${fp16 ? 'fp16' : 'fp32'} | ${cats.map((c) => r?.memory[c]).join(' | ')}`);
}
if (values.json) writeFileSync(values.json, JSON.stringify({ args: base.slice(2), runs }, null, 1));
