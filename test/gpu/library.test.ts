// The library as the package exports it (dist-cli/index.mjs, built by this tier's global setup):
// `train` runs real worker threads from wherever the bundle lives and returns rank 0's parameters,
// `check` returns a report, and `init` and `sampler` are PyTorch's.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import type * as Library from '../../src/api/index.ts';

const lib = () => import(pathToFileURL(resolve('dist-cli/index.mjs')).href) as Promise<typeof Library>;

it('train on a worker thread of the bundle, then check one kernel, through the library', async () => {
  const w = await lib();
  const events: string[] = [];
  const r = await w.train({
    config: { workers: 1, batchSize: 4, trainLimit: 8, testLimit: 4, epochs: 1, seed: 3 },
    store: join(mkdtempSync(join(tmpdir(), 'webddp-lib-')), 'store'),
    onEvent: (e) => events.push(e.type),
  });
  expect(r.params.length).toBe(w.init(3).length);
  expect(r.params).not.toEqual(w.init(3)); // trained: two steps of SGD moved them
  expect(r.lastEpoch?.testSamples).toBe(4);
  expect(events).toContain('step');
  expect(events.at(-1)).toBe('done');

  const report = await w.check({ groups: ['kernels'], kernels: ['fill'] });
  expect(report.ok).toBe(true);
  expect(report.rows.map((x) => x.name)).toEqual([expect.stringMatching(/^fill: /)]);
});
