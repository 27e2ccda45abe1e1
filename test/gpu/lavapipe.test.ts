// The second software driver: Mesa's lavapipe (`--adapter lavapipe`, the Mesa 25 that `npm run setup`
// puts in .lavapipe/), where Dawn offers shader-f16 and subgroups of 8 that SwiftShader lacks or has
// at 4. `webddp devices` lists it; `webddp check` on it passes the kernels the model uses (the
// subgroup reduce among them, at lavapipe's subgroup size), PyTorch's gradients and the two-worker
// DDP fixture with the rank workers on lavapipe too. The whole GPU tier runs on it with
// WEBDDP_ADAPTER=lavapipe (docs/testing.md).
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/result.ts';
import type { AdapterReport } from '../../src/gpu/adapters.ts';
import { lavapipeIcd } from '../../src/gpu/device-node.ts';
import { webddp } from '../helpers/cli.ts';

// --adapter lavapipe by name: a WEBDDP_ADAPTER given to the run (docs/testing.md) would override it
delete process.env.WEBDDP_ADAPTER;

/** Where setup could not fetch it (a system other than Debian 12) the file says so and skips. */
const found = (() => {
  try {
    return lavapipeIcd();
  } catch (e) {
    console.warn(`lavapipe tests skipped: ${(e as Error).message}`);
    return null;
  }
})();

/** The kernels a SimpleCNN step selects on a software adapter, the subgroup reduce among them. */
const KERNELS = [
  'conv2d_backward_weight_reduce_subgroup',
  'conv2d_backward_weight_reduce',
  'linear_forward',
  'linear_backward_input',
  'linear_backward_weight',
  'maxpool2d_forward',
  'maxpool2d_backward',
  'softmax_xent_forward',
  'softmax_xent_backward',
  'normalize_input',
  'sgd_step',
  'adam_step',
  'grad_norm',
  'allreduce_sum',
  'scale',
  'loss_scaler',
  'cast_f32_to_f16',
  'cast_f16_to_f32',
];

describe.skipIf(found === null)('Mesa lavapipe (--adapter lavapipe)', () => {
  it('webddp devices lists it with shader-f16 and subgroups', async () => {
    const r = await webddp('devices', '--json');
    expect(r.code, r.err).toBe(0);
    const { adapters } = JSON.parse(r.out) as { adapters: AdapterReport[] };
    const lvp = adapters.find((a) => a.description.startsWith('llvmpipe'));
    expect(lvp, JSON.stringify(adapters.map((a) => a.description))).toBeDefined();
    expect(lvp?.fallback).toBe(true);
    expect(lvp?.features).toEqual(expect.arrayContaining(['shader-f16', 'subgroups']));
  });

  it('webddp check on it: the model kernels, PyTorch gradients and DDP with its rank workers on it too', async () => {
    const r = await webddp(
      'check',
      '--adapter',
      'lavapipe',
      '--only',
      'kernels,model,ddp',
      '--kernels',
      KERNELS.join(','),
      '--quick',
      '--json',
    );
    const report = JSON.parse(r.out) as CheckReport;
    expect(report.device.adapter.description).toMatch(/^llvmpipe/);
    const failed = report.rows.filter((x) => x.status === 'fail');
    expect(failed.map((x) => `${x.name}: ${x.detail}`)).toEqual([]);
    expect(r.code, r.err).toBe(0);
    for (const group of ['kernels', 'model', 'ddp'])
      expect(report.rows.filter((x) => x.group === group && x.status === 'pass').length, group).toBeGreaterThan(0);
    // lavapipe's subgroups are 8 wide: the subgroup reduce ran (SwiftShader runs it at 4)
    const subgroup = report.rows.filter((x) => x.name.startsWith('conv2d_backward_weight_reduce_subgroup'));
    expect(subgroup.length).toBeGreaterThan(0);
    expect(subgroup.every((x) => x.status === 'pass')).toBe(true);
    // the DDP fixture's ranks ran on lavapipe, in worker threads, and matched PyTorch's shards and losses
    expect(report.rows.filter((x) => x.group === 'ddp' && /losses\[rank 1\]/.test(x.name))).toHaveLength(1);
  });

  it('is for Node only: a browser check refuses it by name', async () => {
    const r = await webddp('check', '--runtime', 'chromium', '--adapter', 'lavapipe', '--only', 'kernels');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--adapter lavapipe is for --runtime node/);
  });
});
