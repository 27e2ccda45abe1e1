// The library's `parity`: replays a PyTorch fixture (kind grad, ddp or autocast_fp16) on this machine's WebGPU and
// compares every output with PyTorch's, as `webddp parity` does. ok only when at least one tensor
// was compared and every one is within the fixture's tolerance.
import { acquireDevice } from '../gpu/device.ts';
import { nodeGpu, wantHalfFeatures, type AdapterChoice } from '../gpu/device-node.ts';
import { ddpMetadataRows, runDdpFixture } from '../parity/ddp.ts';
import { compareOutputs, requireExpected } from '../parity/expected.ts';
import { readFixture, type FixtureKind } from '../parity/fixture.ts';
import { runAutocastFixture } from '../parity/autocast.ts';
import { runGradFixture } from '../parity/grad.ts';
import type { ParityRow } from '../parity/tolerance.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';

export interface ParityResult {
  readonly ok: boolean;
  readonly kind: FixtureKind;
  /** One row per compared tensor: name, rule, ok, max abs/rel error, mismatches. */
  readonly rows: readonly ParityRow[];
}

export async function parityWith(
  rankWorkerUrl: URL,
  fixture: Uint8Array,
  source = 'fixture',
  adapter: AdapterChoice = 'auto',
): Promise<ParityResult> {
  const f = readFixture(fixture, source);
  requireExpected(f);
  // an fp16 step asks for shader-f16 and subgroup matrices, as `webddp train --fp16` does
  if (f.kind === 'autocast_fp16') wantHalfFeatures();
  const { gpu, workers } = await nodeGpu(adapter);
  let rows: ParityRow[];
  if (f.kind !== 'ddp') {
    const g = await acquireDevice(gpu, { label: 'parity' });
    try {
      rows = compareOutputs(f, await (f.kind === 'grad' ? runGradFixture(g, f) : runAutocastFixture(g, f)));
    } finally {
      await g.dispose();
    }
  } else {
    const r = await runDdpFixture(f, nodeSpawner(rankWorkerUrl, workers));
    rows = [...compareOutputs(f, r.outputs), ...ddpMetadataRows(f, r)];
  }
  // rows shown, not judged (rule 'reported') do not count as checks
  const judged = rows.filter((r) => r.rule !== 'reported');
  return { ok: judged.length > 0 && rows.every((r) => r.ok), kind: f.kind, rows };
}
