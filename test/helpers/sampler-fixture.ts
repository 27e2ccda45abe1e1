// test/fixtures/sampler.json (randperm and DistributedSampler as torch 2.11 printed them), typed,
// and the SHA-256 its records hold of a list.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface PermRecord {
  n: number;
  seed: number;
  head: number[];
  sha256: string;
  perm?: number[];
}
export interface SamplerRecord {
  n: number;
  num_replicas: number;
  rank: number;
  shuffle: boolean;
  drop_last: boolean;
  seed: number;
  epoch: number;
  len: number;
  head: number[];
  sha256: string;
  indices?: number[];
}
interface SamplerFixture {
  torch: string;
  randperm: PermRecord[];
  sampler: SamplerRecord[];
}

export const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/sampler.json', import.meta.url), 'utf8'),
) as SamplerFixture;

/** SHA-256 of Python's json.dumps(list): "[a, b, c]". */
export function pyListSha256(values: ArrayLike<number>): string {
  return createHash('sha256')
    .update(`[${Array.from(values).join(', ')}]`)
    .digest('hex');
}
