// The comparison of a DDP replay's shards and losses with the fixture's metadata (`shards`:
// {rank: [epoch indices...]}, exact; `losses`: {rank: [step losses...]}, strict): the rows
// `webddp parity` and `webddp check` print besides the final parameters.
import type { DdpReplay } from './ddp.ts';
import { FixtureError, type Fixture } from './fixture.ts';
import { checkTensor, type ParityRow } from './tolerance.ts';
import { isJsonObject, readJson } from '../input/json.ts';

function metadataJson(f: Fixture, key: string): Record<string, unknown[]> | undefined {
  const raw = f.st.metadata[key];
  if (raw === undefined) return undefined;
  const v = readJson(raw, (issue) => new FixtureError(f.source, `metadata '${key}' is not JSON (${issue})`));
  if (!isJsonObject(v)) throw new FixtureError(f.source, `metadata '${key}' is not a JSON object`);
  return v as Record<string, unknown[]>;
}

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
