// The built-in dataset is learnable: one short epoch of SimpleCNN (1 worker, batch 32, 2048
// training records, the default SGD) lifts test accuracy far above chance (10%). Deterministic:
// seeded init, sampler and data. It trains with the adapter's own kernels (--tuning '{}': no
// overrides), not the 'registers' convolutions the other GPU tests get from WEBDDP_TUNING.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jsonLines, webddp } from '../helpers/cli.ts';

it('one short epoch on the synthetic dataset reaches test accuracy well above chance', async () => {
  const store = join(mkdtempSync(join(tmpdir(), 'webddp-learn-')), 'store');
  const r = await webddp(
    'train',
    '--store',
    store,
    '--workers',
    '1',
    '--batch-size',
    '32',
    '--train-limit',
    '2048',
    '--test-limit',
    '512',
    '--json',
    '--log-every',
    '0',
    '--tuning',
    '{}',
  );
  expect(r.code, r.err).toBe(0);
  const [epoch] = jsonLines(r.out, 'epoch');
  expect(epoch?.test_accuracy).toBeGreaterThan(0.3);
  expect(epoch?.train_loss).toBeLessThan(2.2);
});
