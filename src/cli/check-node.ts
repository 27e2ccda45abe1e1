// Node only: `webddp check`'s environment: a Dawn device on the chosen adapter (a real GPU asks for
// the high-performance one, with the half-precision features: Dawn toggles where the adapter hides
// them), worker threads for the ranks on the same adapter, and the fixtures from the package's
// fixtures/ folder.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckEnvironment } from '../check/check-env.ts';
import { acquireDevice } from '../gpu/device.ts';
import { nodeGpu, wantHalfFeatures, type AdapterChoice } from '../gpu/device-node.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { packageRoot } from './browser.ts';
import type { CliEnv, CliIO } from './command.ts';
import { halfArithmeticLine } from './device.ts';

export async function nodeCheckEnvironment(
  env: CliEnv,
  io: CliIO,
  choice: AdapterChoice,
  device?: string,
): Promise<CheckEnvironment> {
  // The check covers every kernel, the half-precision ones too: ask for their features.
  wantHalfFeatures();
  const { gpu, software, toggles, workers } = await nodeGpu(choice, device);
  const fixtures = join(packageRoot(env), 'fixtures');
  return {
    runtime: 'node-dawn',
    async acquire(label) {
      const g = await acquireDevice(gpu, {
        label,
        ...(software ? {} : { powerPreference: 'high-performance' as const }),
      });
      const a = g.adapter;
      io.err(
        `adapter: ${a.description || a.device || a.architecture} (${a.vendor}${a.fallback ? ', software' : ''})\n`,
      );
      io.err(halfArithmeticLine(g.device.features, g.halfMatrix, toggles));
      return g;
    },
    spawn: nodeSpawner(env.rankWorkerUrl, workers, device ? [device] : []),
    readFixture: async (name) => {
      try {
        return new Uint8Array(await readFile(join(fixtures, name)));
      } catch (e) {
        throw new Error(
          `cannot read the fixture ${join(fixtures, name)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          { cause: e },
        );
      }
    },
  };
}
