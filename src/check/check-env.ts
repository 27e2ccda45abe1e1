// What `webddp check` needs from the runtime it runs in: a device on the chosen adapter, a spawner
// for worker ranks (the DDP fixture and the learning check), and the bundled fixtures. Node
// (src/cli/cmd-check.ts: Dawn, worker threads, the package's fixtures/) and the browser
// (pages/check.ts: navigator.gpu, module workers, fetch) each provide one.
import type { Gpu } from '../gpu/device.ts';
import type { SpawnWorker } from '../runtime/coordinator.ts';
import type { FixtureReader } from './pytorch.ts';

export interface CheckEnvironment {
  /** 'node-dawn' or 'chromium'. */
  readonly runtime: string;
  acquire(label: string): Promise<Gpu>;
  readonly spawn: SpawnWorker;
  readonly readFixture: FixtureReader;
}
