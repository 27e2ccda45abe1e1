// The kernel tuning a command runs with: its --tuning flag, else the WEBDDP_TUNING environment
// variable (the same JSON: src/gpu/tuning.ts parseTuning), else none (each adapter's own). Checked
// here, before any worker starts, so that a typo is one clear error naming where it came from.
import { parseTuning, SOFTWARE_TUNING } from '../gpu/tuning.ts';
import { UsageError } from './command.ts';

export function tuningOption(flag: string | undefined): string | undefined {
  const env = process.env.WEBDDP_TUNING;
  const [json, from] = flag !== undefined ? [flag, '--tuning'] : env ? [env, 'WEBDDP_TUNING'] : [undefined, ''];
  if (json === undefined) return undefined;
  try {
    parseTuning(json, SOFTWARE_TUNING);
  } catch (e) {
    throw new UsageError(`${from}: ${(e as Error).message}`);
  }
  return json;
}
