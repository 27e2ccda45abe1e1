// Replays a `kind: ddp` fixture: the DistributedDataParallel run its spec describes (world size,
// batch per rank, epochs, optimizer, DistributedSampler seed / shuffle / drop_last) on W workers
// with their own devices, on the fixture's data used as is, from its param_init. Returns the final
// parameters under param_final.* and each rank's per-epoch indices and per-step losses, in the
// fixture's metadata format (JSON keyed by rank).
import { getF32, getI32 } from '../checkpoint/safetensors.ts';
import type { TrainConfig } from '../config.ts';
import { parseConfig } from '../parallel/index.ts';
import { Coordinator, type SpawnWorker } from '../runtime/coordinator.ts';
import { FixtureError, fixtureParams, optimizerFromSpec, type Fixture } from './fixture.ts';
import type { ParityOutput } from './grad.ts';
import { checkTensor, type ParityRow } from './tolerance.ts';
import { isJsonObject, readJson } from '../input/json.ts';

export interface DdpReplay {
  readonly outputs: ParityOutput[];
  /** {rank: [epoch indices...]} as the fixture's `shards`. */
  readonly shards: Record<string, number[][]>;
  /** {rank: [step losses...]} as the fixture's `losses`. */
  readonly losses: Record<string, number[]>;
}

function field(spec: Record<string, unknown>, key: string, source: string): unknown {
  if (!(key in spec)) throw new FixtureError(source, `spec has no '${key}'`);
  return spec[key];
}

/** The TrainConfig a ddp fixture's spec describes. */
function ddpConfig(f: Fixture): TrainConfig {
  const s = f.spec;
  const sampler = (field(s, 'sampler', f.source) ?? {}) as Record<string, unknown>;
  const opt = (field(s, 'optimizer', f.source) ?? {}) as Record<string, unknown>;
  const o = optimizerFromSpec(String(opt.name), opt, f.source);
  const [b1, b2] = o.betas ?? [0.9, 0.999];
  if (b1 !== 0.9 || b2 !== 0.999 || (o.eps ?? 1e-8) !== 1e-8 || (o.dampening ?? 0) !== 0 || o.nesterov) {
    throw new FixtureError(f.source, 'this replay supports default betas/eps, no dampening and no Nesterov');
  }
  try {
    return parseConfig({
      mode: 'ddp',
      workers: field(s, 'world_size', f.source),
      batchSize: field(s, 'batch_per_rank', f.source),
      epochs: field(s, 'epochs', f.source),
      optimizer: o.name,
      lr: o.lr,
      momentum: o.momentum ?? 0,
      weightDecay: o.weightDecay ?? 0,
      width: f.model.width,
      seed: sampler.seed ?? 0,
      shuffle: sampler.shuffle ?? true,
      dropLast: sampler.drop_last ?? false,
      checkEvery: 0,
    });
  } catch (e) {
    throw new FixtureError(f.source, `spec describes a run this build cannot replay: ${(e as Error).message}`);
  }
}

export async function runDdpFixture(
  f: Fixture,
  spawn: SpawnWorker,
  onProgress?: (what: string) => void,
): Promise<DdpReplay> {
  const config = ddpConfig(f);
  const x = getF32(f.st, 'data.X', undefined, f.source);
  const y = getI32(f.st, 'data.Y', f.source);
  const coordinator = await Coordinator.start({
    config,
    data: { kind: 'tensors', x, y },
    spawn,
    initialParams: fixtureParams(f, 'param_init.'),
  });
  const shards: Record<string, number[][]> = {};
  const losses: Record<string, number[]> = {};
  for (let r = 0; r < config.workers; r++) {
    shards[r] = [];
    losses[r] = [];
  }
  try {
    for await (const e of coordinator.run()) {
      if (e.type === 'epoch-start') {
        onProgress?.(`epoch ${e.epoch}: ${e.steps} steps on ${config.workers} workers`);
        e.shards.forEach((idx, r) => shards[r]?.push([...idx]));
      } else if (e.type === 'step') {
        e.rankLosses.forEach((l, r) => losses[r]?.push(l));
      }
    }
    const [params] = await coordinator.readParams();
    if (!params) throw new Error('rank 0 returned no parameters');
    const rule = config.optimizer === 'sgd' ? 'strict' : 'adam';
    const outputs = f.model.params.map((p): ParityOutput => ({
      name: `param_final.${p.name}`,
      data: params.slice(p.offset, p.offset + p.size),
      shape: p.shape,
      rule,
    }));
    return { outputs, shards, losses };
  } finally {
    await coordinator.close();
  }
}

function metadataJson(f: Fixture, key: string): Record<string, unknown[]> | undefined {
  const raw = f.st.metadata[key];
  if (raw === undefined) return undefined;
  const v = readJson(raw, (issue) => new FixtureError(f.source, `metadata '${key}' is not JSON (${issue})`));
  if (!isJsonObject(v)) throw new FixtureError(f.source, `metadata '${key}' is not a JSON object`);
  return v as Record<string, unknown[]>;
}

/**
 * The comparison of a DDP replay's shards and losses with the fixture's metadata (`shards`:
 * {rank: [epoch indices...]}, exact; `losses`: {rank: [step losses...]}, strict): the rows
 * `webddp parity` and `webddp check` print besides the final parameters.
 */
export function ddpMetadataRows(f: Fixture, r: Pick<DdpReplay, 'shards' | 'losses'>): ParityRow[] {
  const shards = metadataJson(f, 'shards');
  const losses = metadataJson(f, 'losses');
  const rows: ParityRow[] = [];
  for (const rank of Object.keys(r.shards)) {
    const want = shards?.[rank] as number[][] | undefined;
    if (want) rows.push(checkTensor(`shards[rank ${rank}]`, 'exact', (r.shards[rank] ?? []).flat(), want.flat()));
    const wantL = losses?.[rank] as number[] | undefined;
    if (wantL) rows.push(checkTensor(`losses[rank ${rank}]`, 'strict', r.losses[rank] ?? [], wantL));
  }
  return rows;
}
