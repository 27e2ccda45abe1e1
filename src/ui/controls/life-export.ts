// Why the page's "Export for torchrun" is disabled: no checkpoint yet, or one of a run no torchrun
// script continues (DataParallel, BalancedDataParallel: src/export/torchrun.ts refuses them), said
// in the page's language before the click.
import type { StoredCheckpoint } from '../../checkpoint/dir-idb.ts';
import { MODES } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import { t } from '../i18n/index.ts';
import { MODE_SHORT } from './config-fields.ts';

/** The line under the export button, and whether the newest checkpoint is refused. */
export function exportWhy(newest: StoredCheckpoint | null): { text: string; refused: boolean } {
  const w = t().life;
  if (newest === null) return { text: w.exportNone, refused: false };
  const mode = MODES.find((m) => m === newest.mode);
  if (mode === undefined || PARALLEL_MODES[mode].torchrunRefusal === null) return { text: '', refused: false };
  return { text: w.exportRefusedMode(MODE_SHORT[mode]), refused: true };
}
