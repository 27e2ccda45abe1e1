// `webddp bench --workers 1,2,4 [--modes ddp,dp] [--colocate]`: data-parallel step times in Node
// (worker threads, each with its own Dawn device; --colocate adds DDP with the ranks sharing one
// device) on the synthetic dataset.
import { MODES, type Mode } from '../config.ts';
import { colocatedSpawner, nodeSpawner } from '../runtime/spawn-node.ts';
import { benchmarkDistributed, formatDistBench } from '../bench/dist-step.ts';
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
  /** DDP rows also with the ranks sharing one device (--colocate). */
  readonly colocate: boolean;
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
      ...(a.colocate ? { colocated: (w: number) => colocatedSpawner(env.rankWorkerUrl, adapter, w) } : {}),
    },
    (r) => {
      if (!a.json)
        io.err(`${r.mode}${r.shared ? ' (one device)' : ''} x${r.workers}: ${r.stepMs.toFixed(1)} ms/step\n`);
    },
  );
  if (!a.json) io.out(`${formatDistBench(rows)}\n`);
  io.out(
    `${JSON.stringify({ runtime: 'node-dawn', adapter, batch: a.batch, steps: a.steps, warmup: a.warmup, rows })}\n`,
  );
  return 0;
}
