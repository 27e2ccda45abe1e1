// Node only: `webddp check --runtime chromium`: runs the check in a headless browser
// (check.html, pages/check.ts) through browser.ts, prints its rows as they come back, and
// judges the throughput against a baseline here.
import type { Baseline } from '../check/baseline.ts';
import type { CheckGroup, CheckReport } from '../check/result.ts';
import { judge } from '../check/run.ts';
import type { AdapterChoice } from '../gpu/device-node.ts';
import { runPage } from './browser.ts';
import type { CliEnv, CliIO } from './command.ts';

export interface BrowserCheckOptions {
  readonly groups: readonly CheckGroup[];
  readonly quick: boolean;
  readonly kernels?: readonly string[];
  readonly tuning?: string;
  readonly baseline?: Baseline;
  readonly maxSlowdown?: number;
  readonly adapter: AdapterChoice;
  readonly browser?: string;
  readonly flags?: string;
}

export async function runCheckInBrowser(env: CliEnv, io: CliIO, o: BrowserCheckOptions): Promise<CheckReport> {
  const q = new URLSearchParams({ only: o.groups.join(','), adapter: o.adapter });
  if (o.quick) q.set('quick', '1');
  if (o.kernels) q.set('kernels', o.kernels.join(','));
  if (o.tuning) q.set('tuning', o.tuning);
  const { result: report } = await runPage<CheckReport>(
    env,
    `check.html?${q.toString()}`,
    'webddpCheck',
    {
      allowSoftware: o.adapter !== 'gpu',
      timeoutMs: 60 * 60_000,
      ...(o.browser ? { browser: o.browser } : {}),
      ...(o.flags ? { flags: o.flags } : {}),
    },
    io,
  );
  return o.baseline ? judge(report, o.baseline, o.maxSlowdown) : report;
}
