// `webddp bench --workers 1,2,4 [--modes ddp,dp]`: data-parallel step times in Node on the synthetic
// dataset, in both placements: worker threads each with its own Dawn device, and (for the modes
// that run so) every rank in one worker thread sharing one device, as webddp train --colocate.
import { MODES, type Mode } from '../config.ts';
import { colocatedSpawner, nodeSpawner } from '../runtime/spawn-node.ts';
import { benchmarkDistributed, formatDistBench } from '../throughput/dist-step.ts';
import type { AdapterChoice } from '../gpu/device-node.ts';
import { UsageError, type CliEnv, type CliIO } from './command.ts';
import { settleWorkerAdapter } from './device.ts';
import { prepareData } from './train-data.ts';

export interface DistBenchArgs {
  readonly workers: readonly number[];
  readonly modes: string;
  readonly batch: number;
  readonly steps: number;
  readonly warmup: number;
  readonly width: number;
  readonly store: string;
  readonly adapter: AdapterChoice;
  readonly json: boolean;
}

export async function runDistBench(a: DistBenchArgs, io: CliIO, env: CliEnv | undefined): Promise<number> {
  if (!env) throw new Error('the distributed benchmark needs the bundled rank worker (run it through bin/webddp.mjs)');
  const modes = a.modes.split(',').map((m) => m.trim());
  const bad = modes.filter((m) => !(MODES as readonly string[]).includes(m));
  if (bad.length > 0) throw new UsageError(`--modes: unknown mode(s) ${bad.join(', ')} (use ${MODES.join(', ')})`);
  const { data } = await prepareData('synthetic', a.store, io, a.json);
  const adapter = await settleWorkerAdapter(a.adapter);
  const rows = await benchmarkDistributed(
    {
      workers: a.workers,
      modes: modes as Mode[],
      batch: a.batch,
      steps: a.steps,
      warmup: a.warmup,
      width: a.width,
      data,
      spawn: nodeSpawner(env.rankWorkerUrl, adapter),
      colocated: (w: number) => colocatedSpawner(env.rankWorkerUrl, adapter, w),
    },
    (r) => {
      if (!a.json) io.err(`${r.mode} x${r.workers}, ${r.placement}: ${r.stepMs.toFixed(1)} ms/step\n`);
    },
  );
  io.out(
    a.json
      ? `${JSON.stringify({ runtime: 'node-dawn', adapter, batch: a.batch, steps: a.steps, warmup: a.warmup, rows })}\n`
      : `${formatDistBench(rows)}\n`,
  );
  return 0;
}
