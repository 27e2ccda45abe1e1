// The settings of a run's life on the page (what the CLI's --checkpoint-dir, --checkpoint-every,
// --keep and --max-restarts set), their limits and defaults, and how the page address carries them
// (`?checkpoints=0&checkpointEvery=4&keep=3&maxRestarts=1`). Checkpoints are on by default at each
// epoch's end (checkpointEvery 0), as the DDP tutorial saves once an epoch; a stopped run also saves
// where it stopped, so Resume continues it.

export interface LifeSettings {
  /** Save checkpoints into this browser's IndexedDB. */
  readonly checkpoints: boolean;
  /** Also every N optimizer steps (0: at each epoch's end, and where a run is stopped, only). */
  readonly checkpointEvery: number;
  /** The newest K checkpoints are kept. */
  readonly keep: number;
  /** torchrun's --max-restarts: fresh workers from the last checkpoint after a rank fails. */
  readonly maxRestarts: number;
}

export type LifeKey = keyof LifeSettings;

export const LIFE_DEFAULTS: LifeSettings = { checkpoints: true, checkpointEvery: 0, keep: 2, maxRestarts: 0 };

/** The integer settings' ranges (checkpoints is a checkbox). */
export const LIFE_LIMITS: Readonly<Record<Exclude<LifeKey, 'checkpoints'>, { min: number; max: number }>> = {
  checkpointEvery: { min: 0, max: 1_000_000 },
  keep: { min: 1, max: 20 },
  maxRestarts: { min: 0, max: 10 },
};

export const LIFE_KEYS: readonly LifeKey[] = ['checkpoints', 'checkpointEvery', 'keep', 'maxRestarts'];

export const isLifeKey = (k: string): k is LifeKey => LIFE_KEYS.some((x) => x === k);

/** The allowed range when `v` is outside it (null: fine). */
export function lifeProblem(key: Exclude<LifeKey, 'checkpoints'>, v: number): { min: number; max: number } | null {
  const { min, max } = LIFE_LIMITS[key];
  return Number.isInteger(v) && v >= min && v <= max ? null : { min, max };
}

/** A page parameter's value (unchecked: the panel shows a bad one at its control). */
export function parseLifeParam(key: LifeKey, raw: string): boolean | number {
  return key === 'checkpoints' ? raw === '1' || raw === 'true' : Number(raw);
}

/** The settings that differ from the defaults, as page-address text. */
export function lifeAddress(values: Readonly<Record<LifeKey, string>>): [LifeKey, string][] {
  return LIFE_KEYS.flatMap((k) => {
    const d = LIFE_DEFAULTS[k];
    const dText = typeof d === 'boolean' ? (d ? '1' : '0') : String(d);
    return values[k] === dText ? [] : [[k, values[k]] as [LifeKey, string]];
  });
}
